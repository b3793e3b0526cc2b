package exporter

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// TestWriteWindowDocument: the document is the API's window document with
// its records, whatever the indent it is written at.
func TestWriteWindowDocument(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	clk := fakeAt(t0)
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{10 * time.Second}, Confidence: 0.95})
	for _, r := range []*probe.Record{
		streamed("alpha", 0, -1, 0, 100, 400, 500, 3, 5),
		{Target: "alpha", Seq: 1, RequestStart: at(900), End: at(1000), Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx},
	} {
		st.Started("alpha")
		st.Finished(r)
	}
	clk.Set(at(10000))
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	url, c := startServer(t, s)
	resp, err := c.Get(url + "/api/v1/targets/alpha/windows/10s?records=true")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var fromAPI, written map[string]any
	if err := json.Unmarshal(body, &fromAPI); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteWindowDocument(&buf, st.Current(10*time.Second), false, "    "); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &written); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	recs, _ := written["records"].(map[string]any)["requests"].([]any)
	if !reflect.DeepEqual(fromAPI, written) || len(recs) != 2 {
		t.Errorf("document differs from the API's, or lacks the 2 records:\n%s\nAPI:\n%s", buf.String(), body)
	}
}
