package exporter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/llmprober/llmprober/slo/window"
)

// WriteWindowDocument writes snap as the JSON document of the status API's
// GET /api/v1/targets/{name}/windows/{window}?records=true (docs/api.md,
// "JSON status API"): every summary of every metric per status, the
// objective sets with their verdicts, and every record. Without roundTrips
// (a target that is not a realtime WebSocket one) the round-trip metrics
// are left out. The document is indented by indent after its first line,
// so that it can be placed inside another one.
func WriteWindowDocument(w io.Writer, snap *window.Snapshot, roundTrips bool, indent string) error {
	rs := newRecordStreams()
	doc, err := json.MarshalIndent(newAPIWindow(snap, true, rs, roundTrips), indent, "  ")
	if err != nil {
		return fmt.Errorf("could not encode window: %w", err)
	}
	var buf bytes.Buffer
	if err := rs.write(&buf, doc); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}
