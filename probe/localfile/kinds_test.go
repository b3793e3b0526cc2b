package localfile_test

import (
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/localfile"
	"github.com/llmprober/llmprober/probe/realtime"
	"github.com/llmprober/llmprober/probe/trace"
)

// The limits of the files other packages read agree with those packages'
// own bounds.
func TestKindsAgree(t *testing.T) {
	pcm := int64(realtime.MaxAudioDuration/time.Second) * realtime.SampleRate * 2
	if got := localfile.Audio.MaxBytes; got != pcm+1<<20 {
		t.Errorf("audio limit %d; want %v of PCM16 at %d Hz (%d bytes) + 1 MiB", got, realtime.MaxAudioDuration, realtime.SampleRate, pcm)
	}
	if got := localfile.Trace.MaxBytes; got != trace.MaxFileBytes {
		t.Errorf("trace limit %d; want trace.MaxFileBytes %d", got, trace.MaxFileBytes)
	}
}

// The limits table of docs/security.md states every kind's limit.
func TestKindsInLimitsTable(t *testing.T) {
	readme, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range localfile.Kinds {
		row := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(k.Name) + `[^|]*\| ` + regexp.QuoteMeta(localfile.Size(k.MaxBytes)) + `[ |]`)
		if !row.Match(readme) {
			t.Errorf("the limits table of docs/security.md has no row %q with %s", k.Name, localfile.Size(k.MaxBytes))
		}
	}
}
