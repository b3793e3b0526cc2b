package sim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// readAtLeast reads n bytes of r and returns them.
func readAtLeast(t *testing.T, r io.Reader, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatalf("could not read %d bytes: %v", n, err)
	}
	return b
}

// TestHostileFaults reads 1 MiB of each endless answer (more than one write
// of it) and checks its shape: the client ends it by going away.
func TestHostileFaults(t *testing.T) {
	tests := []struct {
		fault, body, contentType, encoding string
		want                               []byte // the answer repeats this
	}{
		{fault: "junk_lines", body: faultBody, contentType: "text/event-stream", want: []byte("x\n")},
		{fault: "junk_lines", body: strings.Replace(faultBody, `"stream":true`, `"stream":false`, 1),
			contentType: "application/json", want: []byte("[")},
	}
	for _, tt := range tests {
		t.Run(tt.fault+" "+tt.contentType, func(t *testing.T) {
			s, c := start(t, Config{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp := post(ctx, t, c, s.URL()+"/v1/chat/completions", tt.body, tt.fault)
			defer closeBody(resp)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tt.contentType {
				t.Fatalf("status %d type %q, want 200 %q", resp.StatusCode, resp.Header.Get("Content-Type"), tt.contentType)
			}
			got := readAtLeast(t, resp.Body, 1<<20)
			if want := bytes.Repeat(tt.want, (1<<20)/len(tt.want)); !bytes.Equal(got, want) {
				t.Fatalf("the first MiB is not %q repeated", tt.want)
			}
		})
	}
}

// TestHostileGzip checks that the gzip answer declares an encoding nobody
// asked for, and decompresses to zeros at about a thousand to one.
func TestHostileGzip(t *testing.T) {
	s, _ := start(t, Config{})
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := post(ctx, t, c, s.URL()+"/v1/chat/completions", faultBody, "gzip")
	defer closeBody(resp)
	if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", got)
	}
	counted := &countReader{r: resp.Body}
	zr, err := gzip.NewReader(counted)
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	out := readAtLeast(t, zr, 64<<20)
	if !bytes.Equal(out, make([]byte, len(out))) {
		t.Fatal("decompressed bytes are not all zero")
	}
	if ratio := len(out) / counted.n; ratio < 500 {
		t.Errorf("64 MiB decompressed from %d bytes (ratio %d), want at least 500", counted.n, ratio)
	}
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestHostileEndlessHeader reads the status line and 1000 header lines.
func TestHostileEndlessHeader(t *testing.T) {
	s, _ := start(t, Config{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	req := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Sim-Fault: endless_header\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(len(faultBody)) + "\r\n\r\n" + faultBody
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if l, _ := br.ReadString('\n'); l != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("status line %q", l)
	}
	for i := range 1000 {
		l, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(l, "X-Sim-Junk: yyy") || len(l) != 1014 {
			t.Fatalf("header line %d: %q (%v)", i, l[:min(len(l), 40)], err)
		}
	}
}

// TestHostileRealtime checks the realtime forms: endless unknown messages
// after session.created, and a gzip answer instead of the upgrade.
func TestHostileRealtime(t *testing.T) {
	s, _ := start(t, Config{})
	url := "ws" + strings.TrimPrefix(s.URL(), "http") + RealtimePath
	c, _, err := websocket.DefaultDialer.Dial(url, http.Header{FaultHeader: {"junk_lines"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	for i := range 1001 {
		_, msg, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if i > 0 && !bytes.HasPrefix(msg, []byte(`{"type":"sim.junk"`)) {
			t.Fatalf("message %d: %.40q", i, msg)
		}
	}
	_, resp, err := websocket.DefaultDialer.Dial(url, http.Header{FaultHeader: {"gzip"}})
	if err == nil || resp == nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip handshake: err %v, resp %v", err, resp)
	}
	closeBody(resp)
}
