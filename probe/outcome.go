package probe

// Outcome is a request's final status.
//
// Precedence, applied once when a request ends (first match wins):
//  1. incomplete: the request was cancelled by the prober itself (shutdown,
//     reload, target removal or a run's duration limit) before it finished,
//     or the prober could not carry it out for want of a resource of its
//     own (ErrorProber): neither says anything about the target;
//  2. errored: anything went wrong (HTTP status ≥ 400, transport failure,
//     request timeout, an error event in the stream, a malformed or truncated
//     stream, a response that cannot be decoded);
//  3. successful: the response was read completely and well-formed.
//
// A request timeout is an error, not incomplete: a hung server counts against
// its objectives instead of leaving the denominator.
type Outcome string

// The outcomes.
const (
	Successful Outcome = "successful"
	Errored    Outcome = "errored"
	Incomplete Outcome = "incomplete"
)

// Outcomes lists every outcome, in a fixed order.
var Outcomes = []Outcome{Successful, Errored, Incomplete}

// ErrorType is the bounded classification of an errored or incomplete request.
// It is safe to use as a metric label; raw error text never is.
type ErrorType string

// The error types.
const (
	// ErrorNone is the type of a successful request.
	ErrorNone ErrorType = ""
	// ErrorTimeout: the request timeout expired (before or during the response).
	ErrorTimeout ErrorType = "timeout"
	// ErrorConnection: DNS, connect, TLS or a connection reset or closed early.
	ErrorConnection ErrorType = "connection"
	// ErrorHTTP429: the server answered 429 Too Many Requests.
	ErrorHTTP429 ErrorType = "http_429"
	// ErrorHTTP4xx: any other 4xx status.
	ErrorHTTP4xx ErrorType = "http_4xx"
	// ErrorHTTP5xx: a 5xx status.
	ErrorHTTP5xx ErrorType = "http_5xx"
	// ErrorStream: the server sent an error event inside a 200 stream.
	ErrorStream ErrorType = "stream_error"
	// ErrorProtocol: the response could not be understood (malformed or truncated
	// stream, HTML or garbage instead of JSON, unexpected content type).
	ErrorProtocol ErrorType = "protocol"
	// ErrorCanceled: the prober cancelled the request (only with outcome incomplete).
	ErrorCanceled ErrorType = "canceled"
	// ErrorProber: the prober itself ran out of a local resource (file
	// descriptors, memory, buffer space, local ports) and could not carry
	// the request out; only with outcome incomplete, so that the target is
	// not charged for the prober's exhaustion.
	ErrorProber ErrorType = "prober"
)

// ErrorTypes lists every error type of an errored request, in a fixed order.
var ErrorTypes = []ErrorType{
	ErrorTimeout, ErrorConnection, ErrorHTTP429, ErrorHTTP4xx, ErrorHTTP5xx, ErrorStream, ErrorProtocol,
}

// IncompleteErrorTypes lists every error type of an incomplete request, in
// a fixed order.
var IncompleteErrorTypes = []ErrorType{ErrorCanceled, ErrorProber}

// Failed reports whether a request of outcome o and error type e failed,
// whoever's fault it was: it errored, or the prober could not carry it out
// (ErrorProber). A closed-loop stream pauses after such a request, so that
// neither a failing target nor an exhausted prober is driven in a tight
// loop.
func Failed(o Outcome, e ErrorType) bool { return o == Errored || e == ErrorProber }
