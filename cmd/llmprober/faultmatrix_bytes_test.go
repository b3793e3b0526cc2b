package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
)

// endlessBytes bounds what an endless body of the fault matrix writes, in
// bytes, should the prober never stop reading: far past every limit a
// probe has but the response's 1 GiB.
const endlessBytes = 64 << 20

// byteCases are the targets of the fault matrix that send more than any
// bound lets a probe keep, or what was not asked for: an endless event
// stream of lines without a colon, a gzip body sent uninvited, headers
// past 64 KiB, a malformed chunked body, and a realtime handshake answered
// with headers past its bound. Every request of each is errored, protocol.
func byteCases(t *testing.T) []matrixCase {
	t.Helper()
	chunkHead := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	cases := []matrixCase{
		{name: "endless-colonless", base: serve(t, endlessSSE("x\n")).URL + "/v1"},
		{name: "uninvited-gzip", base: serve(t, uninvitedGzip()).URL + "/v1"},
		{name: "giant-header", base: rawHTTP(t, "HTTP/1.1 200 OK\r\nX-Junk: "+strings.Repeat("x", 100<<10)+"\r\n\r\n") + "/v1"},
		{name: "malformed-chunking", base: rawHTTP(t, chunkHead+"zz\r\ndata: {}\r\n") + "/v1"},
		{name: "realtime-giant-header", yaml: realtimeYAML,
			base: rawHTTP(t, "HTTP/1.1 101 Switching Protocols\r\nX-Junk: "+strings.Repeat("x", 200<<10)+"\r\n\r\n") + "/v1"},
	}
	for i := range cases {
		cases[i].outcome, cases[i].errType = "errored", "protocol"
	}
	return cases
}

// endlessSSE streams line over and over, up to endlessBytes or until the
// client goes away.
func endlessSSE(line string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		batch := []byte(strings.Repeat(line, 4096/len(line)))
		for sent := 0; sent < endlessBytes && r.Context().Err() == nil; sent += len(batch) {
			if _, err := w.Write(batch); err != nil {
				return
			}
		}
	}
}

// uninvitedGzip answers with a gzip-compressed stream, whatever the
// request's Accept-Encoding.
func uninvitedGzip() http.HandlerFunc {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	_, _ = io.WriteString(z, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	_ = z.Close()
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(b.Bytes())
	}
}
