package exporter

import (
	"net/http"
	"strconv"
	"time"
)

// ServerLimits bounds what the clients of the HTTP server can take from
// it: time, connections, header bytes and concurrent heavy requests. A
// zero field takes its value from DefaultServerLimits.
type ServerLimits struct {
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the reading of a whole request, body included.
	ReadTimeout time.Duration
	// WriteTimeout bounds a response, from the end of its request's
	// headers to its last byte; long enough for a scrape of many targets
	// over a slow link. A streamed records response is bounded instead by
	// StallTimeout and RecordsTimeout.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection unused for this long.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's header lines, in bytes.
	MaxHeaderBytes int
	// MaxConnections bounds the connections open at once; when all are
	// taken, the one idle the longest is closed for the next client, and
	// without an idle one further clients wait in the kernel's accept
	// queue, holding no file descriptor of the process.
	MaxConnections int
	// MaxRecordsRequests bounds the API requests with records=true served
	// at once; one more is answered 429 with Retry-After.
	MaxRecordsRequests int
	// MaxMetricsRequests bounds the /metrics requests served at once; one
	// more is answered 429 with Retry-After.
	MaxMetricsRequests int
	// StallTimeout cuts a streamed records response whose client has
	// accepted nothing for this long.
	StallTimeout time.Duration
	// RecordsTimeout bounds a streamed records response as a whole.
	RecordsTimeout time.Duration
	// ShutdownTimeout is how long Shutdown waits for requests in progress
	// before it closes the connections still open.
	ShutdownTimeout time.Duration
}

// DefaultServerLimits are the limits of a Server whose options set none.
var DefaultServerLimits = ServerLimits{
	ReadHeaderTimeout:  10 * time.Second,
	ReadTimeout:        30 * time.Second,
	WriteTimeout:       time.Minute,
	IdleTimeout:        2 * time.Minute,
	MaxHeaderBytes:     64 << 10,
	MaxConnections:     256,
	MaxRecordsRequests: 4,
	MaxMetricsRequests: 16,
	StallTimeout:       10 * time.Second,
	RecordsTimeout:     5 * time.Minute,
	ShutdownTimeout:    5 * time.Second,
}

// withDefaults returns l with each zero field taken from DefaultServerLimits.
func (l ServerLimits) withDefaults() ServerLimits {
	d := DefaultServerLimits
	orDuration(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	orDuration(&l.ReadTimeout, d.ReadTimeout)
	orDuration(&l.WriteTimeout, d.WriteTimeout)
	orDuration(&l.IdleTimeout, d.IdleTimeout)
	orDuration(&l.StallTimeout, d.StallTimeout)
	orDuration(&l.RecordsTimeout, d.RecordsTimeout)
	orDuration(&l.ShutdownTimeout, d.ShutdownTimeout)
	orInt(&l.MaxHeaderBytes, d.MaxHeaderBytes)
	orInt(&l.MaxConnections, d.MaxConnections)
	orInt(&l.MaxRecordsRequests, d.MaxRecordsRequests)
	orInt(&l.MaxMetricsRequests, d.MaxMetricsRequests)
	return l
}

func orDuration(p *time.Duration, d time.Duration) {
	if *p <= 0 {
		*p = d
	}
}

func orInt(p *int, d int) {
	if *p <= 0 {
		*p = d
	}
}

// retryAfter is the Retry-After of a request refused for being one too
// many, in seconds.
const retryAfter = 1

// inFlight admits at most cap(slots) requests at once.
type inFlight chan struct{}

// newInFlight returns a limit of n requests at once.
func newInFlight(n int) inFlight { return make(inFlight, n) }

// acquire takes a slot without waiting; false when every slot is taken.
func (f inFlight) acquire() bool {
	select {
	case f <- struct{}{}:
		return true
	default:
		return false
	}
}

// release frees a slot taken by acquire.
func (f inFlight) release() { <-f }

// limit serves h with at most cap(f) requests at once; one more is
// answered by refuse, after Retry-After is set.
func (f inFlight) limit(h http.Handler, refuse http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !f.acquire() {
			tooMany(w)
			refuse(w, r)
			return
		}
		defer f.release()
		h.ServeHTTP(w, r)
	})
}

// tooMany sets the Retry-After of a 429 answer.
func tooMany(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
}
