package config

import (
	"slices"
	"time"

	"github.com/llmprober/llmprober/probe/realtime"
	"github.com/llmprober/llmprober/probe/trace"
)

// The realtime defaults are the backend's own (this file is the one of the
// package that may import it).
const (
	// DefaultRealtimePath is Realtime.Path's default.
	DefaultRealtimePath = realtime.DefaultPath
	// DefaultChunkDuration is Realtime.ChunkDuration's default.
	DefaultChunkDuration = realtime.DefaultChunkDuration
)

// This file is the one place config meets the domain packages that decode
// the files a target references (probe/trace for traces, probe/realtime for
// WAV audio): config validates their settings and paths, the domain
// decodes, and Check and every run (start and reload) go through loadAssets.

// LimitAudioDuration bounds Realtime.AudioDuration, as
// realtime.MaxAudioDuration bounds an audio file.
const LimitAudioDuration = realtime.MaxAudioDuration

// traceFormats lists the trace formats Trace.Format may name.
var traceFormats = trace.Formats

// Assets are the decoded files of one target.
type Assets struct {
	// Trace is the trace a target with the trace strategy replays; nil
	// for other strategies.
	Trace *trace.Trace
	// Audio is the PCM16 mono 16 kHz audio a target with backend
	// openai_websocket sends: its WAV file's samples, or a generated tone
	// of AudioDuration; nil for other backends.
	Audio []byte
}

// Assets returns the target's decoded files: those Check loaded, or, for a
// target Check has not seen, those loadAssets loads now. The error names
// the setting of the first file that cannot be used.
func (t *Target) Assets() (*Assets, error) {
	if t.assets != nil {
		return t.assets, nil
	}
	col := &collector{}
	a := t.loadAssets(col, "")
	if err := col.errs.orNil(); err != nil {
		return nil, err
	}
	return a, nil
}

// loadAssets decodes the files t references and records at their settings
// (path locates t) why one cannot be used: unreadable or malformed, a
// looping trace that spans no time, one replayed faster than LimitRate,
// audio that outlasts the timeout. It returns what could be decoded.
func (t *Target) loadAssets(col *collector, path string) *Assets {
	return &Assets{
		Trace: t.Schedule.loadTrace(col, joinPath(path, "schedule")),
		Audio: t.Realtime.loadAudio(col, joinPath(path, "realtime"), t.Timeout),
	}
}

// loadTrace reads the target's trace file, when it replays one, and records
// its first problem; the message names the trace file, line and field.
func (s *Schedule) loadTrace(col *collector, path string) *trace.Trace {
	if s.Strategy != StrategyTrace || s.Trace.File == "" {
		return nil
	}
	if s.Trace.Format != "" && !slices.Contains(traceFormats, s.Trace.Format) {
		return nil
	}
	tr, err := trace.Read(s.Trace.File, s.Trace.Format)
	switch {
	case err != nil:
		col.add(path+".trace.file", "%v", err)
	case s.Trace.Loop && tr.Period() <= 0 && tr.Timed() > 0:
		col.add(path+".trace.loop", "trace %s cannot loop: %s", s.Trace.File, trace.NoSpan)
	default:
		s.Trace.checkRate(col, path+".trace", tr.Timed(), tr.Period())
	}
	return tr
}

// loadAudio returns the audio of a target with backend openai_websocket
// (r non-nil): the audio file's samples, recording why it cannot be sent
// (unreadable, not PCM16 mono 16 kHz, too long, or, with pacing realtime,
// not shorter than timeout), or a tone of AudioDuration.
func (r *Realtime) loadAudio(col *collector, path string, timeout time.Duration) []byte {
	if r == nil {
		return nil
	}
	if r.AudioFile == "" {
		if r.AudioDuration <= 0 || r.AudioDuration > LimitAudioDuration {
			return nil // validate reports it
		}
		return realtime.Tone(r.AudioDuration)
	}
	pcm, err := realtime.LoadWAV(r.AudioFile)
	if err != nil {
		col.add(path+".audio_file", "%v", err)
		return nil
	}
	if d := realtime.AudioDuration(pcm); r.outlasts(timeout, d) {
		col.add(path+".audio_file", "audio file %s: %s", r.AudioFile, outlastsMsg(d, timeout))
	}
	return pcm
}
