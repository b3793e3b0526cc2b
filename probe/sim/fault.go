package sim

// Fault is a failure the server can inject into one request.
type Fault string

// The faults. In a stream, the mid-stream faults strike after
// faultAfterTokens(n) tokens of the n asked for (3, or fewer for short
// outputs); in a non-streamed request they strike at the time that token
// would have been generated.
const (
	// FaultHTTP500 answers 500 with a JSON error body.
	FaultHTTP500 Fault = "http_500"
	// FaultHTTP429 answers 429 with a JSON error body and Retry-After: 1.
	FaultHTTP429 Fault = "http_429"
	// FaultReset aborts the TCP connection with a reset (RST) mid-stream, or
	// before any response byte when not streamed.
	FaultReset Fault = "reset"
	// FaultStall stops sending mid-stream (before the response headers when
	// not streamed) and holds the connection until the client goes away or
	// the server closes.
	FaultStall Fault = "stall"
	// FaultMalformed sends one event whose data is not valid JSON mid-stream,
	// then goes on normally; when not streamed, the 200 body is cut-off JSON.
	FaultMalformed Fault = "malformed"
	// FaultErrorEvent sends a data event holding an error object mid-stream
	// and ends the stream cleanly without [DONE]; when not streamed, the 200
	// body is that error object.
	FaultErrorEvent Fault = "error_event"
	// FaultHTML answers 200 with a text/html page instead of JSON or events.
	FaultHTML Fault = "html"
	// FaultTruncated ends the stream cleanly mid-way, without a finish chunk
	// or [DONE]; when not streamed, it declares the full Content-Length, sends
	// half the body and closes the connection.
	FaultTruncated Fault = "truncated"
)

// FaultHeader is the request header that forces a fault (a Fault value) or
// forbids one ("none") for that request, overriding Config.Faults.
const FaultHeader = "X-Sim-Fault"

// noFault is the header value that forbids a fault.
const noFault = "none"

// faultOrder lists every fault in the order random choices try them.
var faultOrder = []Fault{
	FaultHTTP500, FaultHTTP429, FaultReset, FaultStall,
	FaultMalformed, FaultErrorEvent, FaultHTML, FaultTruncated,
}

// Faults returns every fault, in the fixed order in which random choices
// try them.
func Faults() []Fault {
	return append([]Fault(nil), faultOrder...)
}

// valid reports whether f is a random fault; validHeader also admits the
// hostile faults, which only the header chooses.
func (f Fault) valid() bool {
	for _, g := range faultOrder {
		if f == g {
			return true
		}
	}
	return false
}

// pickFault maps u, uniform in [0, 1), to a fault: the first fault in
// faultOrder whose cumulative probability exceeds u, or "" when none does.
func pickFault(u float64, probs map[Fault]float64) Fault {
	cum := 0.0
	for _, f := range faultOrder {
		p := probs[f]
		if p <= 0 {
			continue
		}
		cum += p
		if u < cum {
			return f
		}
	}
	return ""
}

// faultAfterTokens is how many of n tokens are sent before a mid-stream fault:
// 3, or n/2 (rounded down) when that is smaller.
func faultAfterTokens(n int) int {
	return min(3, n/2)
}

func (f Fault) validHeader() bool {
	for _, g := range hostileOrder {
		if f == g {
			return true
		}
	}
	return f.valid()
}
