package realtime

import (
	"context"
	"sync"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// Do sends the audio as one request and returns its record; see probe.Backend.
func (b *Backend) Do(ctx context.Context, req *probe.Request) *probe.Record {
	if req == nil {
		req = &probe.Request{}
	}
	rec := b.newRecord(req)
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := clock.CancelAfter(b.cfg.Clock, b.cfg.Timeout, cancel, probe.ErrTimeout)
	s := &session{b: b, rec: rec}
	s.usage.Streamed()
	err := s.run(rctx)
	stop()
	b.finish(ctx, rctx, rec, err)
	s.usage.Apply(rec, probe.Sent{Prompt: true}) // the audio; no output limit is sent
	return rec
}

// newRecord returns the record of req before it is sent.
func (b *Backend) newRecord(req *probe.Request) *probe.Record {
	return &probe.Record{
		Target: b.cfg.Target, Seq: req.Seq, API: API, Stream: true,
		ConversationID: req.ConversationID, Turn: req.Turn,
		TargetedStart: req.TargetedStart, PredecessorDone: req.PredecessorDone,
		RequestedOutputTokens: req.MaxOutputTokens,
	}
}

// run connects, streams the audio and reads the transcript; it returns nil
// once transcription.done was read. The connection closes when rctx is
// done (see dialer), which ends every read and write. Every goroutine it
// starts has ended when it returns.
func (s *session) run(rctx context.Context) error {
	s.rec.RequestStart = s.b.cfg.Clock.Now()
	var hs handshake
	conn, resp, err := s.b.dialer(&hs).DialContext(rctx, s.b.url, s.b.cfg.Header)
	hs.done()
	if resp != nil {
		s.rec.HTTPStatus = resp.StatusCode
	}
	if err != nil {
		return s.b.handshakeError(err, resp)
	}
	s.conn = conn
	conn.SetReadLimit(s.b.cfg.MaxMessageBytes)
	var wg sync.WaitGroup
	defer func() {
		_ = conn.Close()
		wg.Wait()
	}()
	if err := s.open(); err != nil {
		return err
	}
	results, readerDone := make(chan error, 1), make(chan struct{})
	wg.Go(func() {
		defer close(readerDone)
		results <- s.read()
	})
	if werr := s.write(rctx, readerDone); werr != nil {
		// A failed write means a broken connection, which the reader sees
		// too, or its reason (a close frame, an error event) first.
		if rerr := <-results; isTyped(rerr) {
			return rerr
		}
		return werr
	}
	err = <-results
	if err == nil {
		s.close()
	}
	return err
}
