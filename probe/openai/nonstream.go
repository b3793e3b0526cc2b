package openai

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/llmprober/llmprober/probe"
)

// readBody reads and decodes a whole (non-streamed) response. Only the token
// counts are taken from it: without a stream there is no first token. A
// body that is not JSON but begins like SSE says so: the server streamed
// although stream was false.
func (b *Backend) readBody(resp *http.Response, x *exchange) error {
	data, err := io.ReadAll(io.LimitReader(resp.Body, b.cfg.MaxBodyBytes+1))
	if err != nil {
		return fmt.Errorf("could not read response: %w", err)
	}
	x.rec.End = b.cfg.Clock.Now()
	if int64(len(data)) > b.cfg.MaxBodyBytes {
		return probe.Failf(probe.ErrorProtocol, "response body larger than %d bytes", b.cfg.MaxBodyBytes)
	}
	data = probe.TrimBOM(data)
	c, err := decodeChunk(data)
	if err != nil {
		if startOf(bytes.TrimLeft(data, " \t\r\n")) == bodySSE {
			return probe.Failf(probe.ErrorProtocol, "server ignored stream: false: the body is SSE, not JSON")
		}
		return serverFailure(probe.ErrorProtocol, fmt.Sprintf("could not decode response: %v", err), probe.ParseServerError(data))
	}
	if c.failed {
		return serverFailure(probe.ErrorProtocol, "error in response", c.err)
	}
	if c.choices == 0 {
		return probe.Failf(probe.ErrorProtocol, "response has no choices")
	}
	x.rec.OutputSeen = c.token
	c.usage.apply(&x.usage)
	return nil
}
