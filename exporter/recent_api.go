package exporter

import (
	"fmt"
	"net/http"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// apiRecent is GET /api/v1/targets/{name}/recent: the target's last
// finished requests, newest first, as the status page shows them.
type apiRecent struct {
	Target string           `json:"target"`
	Recent []apiRecentProbe `json:"recent"`
}

// apiRecentProbe is one finished request; durations in seconds, null where
// undefined. Error is the redacted, shortened error text; it and the text
// of ErrorCode have the runes the log escapes escaped (probe.Printable).
type apiRecentProbe struct {
	Time              *string         `json:"time"`
	Seq               uint64          `json:"seq"`
	Outcome           probe.Outcome   `json:"outcome"`
	ErrorType         *string         `json:"error_type"`
	ErrorCode         probe.ErrorCode `json:"error_code"`
	Error             *string         `json:"error"`
	HTTPStatus        *int            `json:"http_status"`
	Latency           *float64        `json:"request_latency"`
	TTFT              *float64        `json:"time_to_first_token"`
	TTFOT             *float64        `json:"time_to_first_output_token"`
	ITL               *float64        `json:"inter_token_latency"`
	TPOT              *float64        `json:"time_per_output_token"`
	OutputTokens      *int            `json:"output_tokens"`
	OutputTokensFrom  *string         `json:"output_tokens_from"`
	UsageInconsistent bool            `json:"usage_inconsistent"`
	TokensClamped     bool            `json:"tokens_clamped"`
}

// getRecent serves GET /api/v1/targets/{name}/recent.
func (w *Windows) getRecent(r apiRequest) (any, *apiError) {
	name := r.req.PathValue("name")
	st, ok := w.states()[name]
	if w.lookup(name) == nil || !ok {
		return nil, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("unknown target %q", name)}
	}
	out := apiRecent{Target: name, Recent: []apiRecentProbe{}}
	for i := range st.Recent {
		out.Recent = append(out.Recent, newAPIRecentProbe(&st.Recent[i]))
	}
	return out, nil
}

// newAPIRecentProbe formats one recent request.
func newAPIRecentProbe(p *ProbeSummary) apiRecentProbe {
	out := apiRecentProbe{
		Time: timeJSON(p.Time), Seq: p.Seq, Outcome: p.Outcome, ErrorCode: printableCode(p.ErrorCode),
		ErrorType: stringOrNil(string(p.ErrorType)), Error: stringOrNil(p.Error),
		Latency: secondsOrNil(p.Latency), TTFT: secondsOrNil(p.TTFT), TTFOT: secondsOrNil(p.TTFOT),
		ITL: secondsOrNil(p.ITL), TPOT: secondsOrNil(p.TPOT),
		UsageInconsistent: p.UsageInconsistent, TokensClamped: p.TokensClamped,
	}
	if p.HTTPStatus != 0 {
		out.HTTPStatus = &p.HTTPStatus
	}
	if p.OutputTokensFrom != probe.TokensUnknown {
		n, from := p.OutputTokens, string(p.OutputTokensFrom)
		out.OutputTokens, out.OutputTokensFrom = &n, &from
	}
	return out
}

// printableCode is c with its text escaped by probe.Printable.
func printableCode(c probe.ErrorCode) probe.ErrorCode {
	c.Text = probe.Printable(c.Text)
	return c
}

// stringOrNil returns &s, or nil when s is empty.
func stringOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// secondsOrNil returns *d in seconds, or nil.
func secondsOrNil(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	s := d.Seconds()
	return &s
}
