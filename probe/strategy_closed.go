package probe

import (
	"fmt"
	"time"
)

// Limits of the closed-loop strategies, so that stream start times cannot overflow.
const (
	// MaxStreams is the largest number of streams of a closed-loop strategy.
	MaxStreams = 10000
	// MaxRampup is the longest rampup accepted.
	MaxRampup = 24 * time.Hour
)

// DefaultErrorBackoff is the pause of a stream after an errored request,
// unless SetErrorBackoff says otherwise.
const DefaultErrorBackoff = time.Second

// Closed is a closed-loop strategy: a fixed number of streams, each sending
// its next request as soon as its previous one ends (or is dropped). Stream i
// of N sends its first request at i·Rampup/N after the run's start. Closed
// strategies have no arrival schedule: the slot time of a request is derived
// from the endpoint's own responses, so dispatch delay and scheduled latency
// are not defined for their requests (null, never zero).
//
// After an errored request its stream pauses for the error backoff
// (DefaultErrorBackoff unless SetErrorBackoff changes it) before sending its
// next one, so that a dead or fast-failing endpoint is not hammered in a
// tight loop. A request that was dropped unsent frees its stream at once.
//
// The three configured forms are synchronous (one stream), concurrent (N
// streams, optional rampup) and throughput (as many streams as the
// concurrency cap, every slot at the run's start).
type Closed struct {
	name    string
	streams int
	rampup  time.Duration
	atStart bool // every slot at offset 0 (throughput)
	backoff time.Duration

	started int            // streams that have sent their first request
	free    []freeStream   // streams whose last request ended, oldest first
	busy    map[uint64]int // stream of each request in flight
}

// freeStream is a stream ready for its next request since at.
type freeStream struct {
	stream int
	at     time.Duration
}

// NewSynchronous returns the synchronous strategy: one request at a time,
// the next as soon as the previous one ends.
func NewSynchronous() *Closed {
	return &Closed{name: "synchronous", streams: 1, backoff: DefaultErrorBackoff, busy: map[uint64]int{}}
}

// NewConcurrent returns the concurrent strategy: streams (1 to MaxStreams)
// streams, each sending its next request when its last one ends; the first
// requests of the streams are spread over rampup (0 to MaxRampup). The
// prober's concurrency cap plus its backlog must hold every stream, or a
// stream's request would be dropped and reissued at once.
func NewConcurrent(streams int, rampup time.Duration) (*Closed, error) {
	if streams < 1 || streams > MaxStreams {
		return nil, fmt.Errorf("streams must be from 1 to %d, got %d", MaxStreams, streams)
	}
	if rampup < 0 || rampup > MaxRampup {
		return nil, fmt.Errorf("rampup must be from 0 to %v, got %v", MaxRampup, rampup)
	}
	return &Closed{name: "concurrent", streams: streams, rampup: rampup, backoff: DefaultErrorBackoff, busy: map[uint64]int{}}, nil
}

// NewThroughput returns the throughput strategy: as many requests in flight
// as maxConcurrency allows, every one of them due at the run's start.
func NewThroughput(maxConcurrency int) (*Closed, error) {
	if maxConcurrency < 1 || maxConcurrency > MaxStreams {
		return nil, fmt.Errorf("max concurrency must be from 1 to %d, got %d", MaxStreams, maxConcurrency)
	}
	return &Closed{name: "throughput", streams: maxConcurrency, atStart: true, backoff: DefaultErrorBackoff, busy: map[uint64]int{}}, nil
}

// SetErrorBackoff sets how long a stream pauses after an errored request
// before its next one; 0 (or less) sends the next one at once. Call it
// before the strategy is used.
func (c *Closed) SetErrorBackoff(d time.Duration) { c.backoff = max(d, 0) }

// Name implements Strategy.
func (c *Closed) Name() string { return c.name }

// HasSchedule implements Strategy: a closed loop has no arrival schedule.
func (*Closed) HasSchedule() bool { return false }

// Streams returns the number of streams, which is also the most requests the
// strategy ever has outstanding.
func (c *Closed) Streams() int { return c.streams }

// Next implements Strategy: the earliest of the free streams (the one freed
// first among equals) and the next stream to start; AwaitCompletion when
// every stream is busy.
func (c *Closed) Next(uint64) Decision {
	d := Decision{Kind: AwaitCompletion}
	for _, f := range c.free {
		if d.Kind != Due || f.at < d.At {
			d = Decision{Kind: Due, At: f.at, Stream: f.stream}
		}
	}
	if c.started < c.streams {
		at := c.startAt(c.started)
		if d.Kind != Due || at < d.At {
			d = Decision{Kind: Due, At: at, Stream: c.started}
		}
	}
	return d
}

// startAt is when stream i sends its first request: i·rampup/streams.
func (c *Closed) startAt(i int) time.Duration {
	return time.Duration(int64(c.rampup) * int64(i) / int64(c.streams))
}

// Issue implements Strategy: the decided stream becomes busy.
func (c *Closed) Issue(n uint64, d Decision) {
	if d.Stream >= c.started {
		c.started = d.Stream + 1
	} else {
		for i, f := range c.free {
			if f.stream == d.Stream {
				c.free = append(c.free[:i], c.free[i+1:]...)
				break
			}
		}
	}
	c.busy[n] = d.Stream
}

// Completed implements Strategy: the request's stream is free from at, or
// from at plus the error backoff when the request failed (errored, or the
// prober could not carry it out: see Failed). Under throughput
// a stream freed without backoff is due at the start (offset 0).
func (c *Closed) Completed(n uint64, rec *Record, at time.Duration) {
	s, ok := c.busy[n]
	if !ok {
		return
	}
	delete(c.busy, n)
	switch {
	case rec != nil && Failed(rec.Outcome, rec.ErrorType) && c.backoff > 0:
		at += c.backoff
	case c.atStart:
		at = 0
	}
	c.free = append(c.free, freeStream{stream: s, at: at})
}
