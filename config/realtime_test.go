package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/realtime"
)

// fullRealtime is the realtime target of testdata/full.yml.
var fullRealtime = Target{
	Name: "transcribe", BaseURL: "http://127.0.0.1:8000/v1", Model: "mistralai/Voxtral-Mini-4B-Realtime-2602",
	Backend: BackendWebSocket, API: APIRealtime, Stream: ptr(true), Provider: "openai", Timeout: time.Minute,
	Auth:      Auth{Header: "Authorization"},
	Readiness: Readiness{Path: "models", Timeout: 5 * time.Second, Interval: 2 * time.Second, StartupTimeout: 10 * time.Minute},
	Workload: Workload{PromptTokens: Fixed(128), OutputTokens: Fixed(64),
		MaxTokensFields: []string{"max_tokens", "max_completion_tokens"}},
	Schedule: Schedule{Strategy: "constant", Rate: 0.2, MaxConcurrency: 4, MaxQueue: ptr(4)},
	Realtime: &Realtime{Path: "/v1/realtime", AudioDuration: 3 * time.Second, ChunkDuration: 200 * time.Millisecond, Pacing: PacingFast},
}

func TestRealtimeDefaults(t *testing.T) {
	c := &Config{Targets: []Target{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Backend: BackendWebSocket}}}
	c.ApplyDefaults()
	tg := c.Targets[0]
	want := Realtime{Path: "/v1/realtime", AudioDuration: 2 * time.Second, ChunkDuration: 100 * time.Millisecond, Pacing: PacingRealtime}
	if tg.API != APIRealtime || !*tg.Stream || tg.Realtime == nil || !reflect.DeepEqual(*tg.Realtime, want) {
		t.Fatalf("api %q stream %v realtime %+v; want realtime, true, %+v", tg.API, *tg.Stream, tg.Realtime, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := tg.Assets()
	if err != nil || len(a.Audio) != 2*16000*2 {
		t.Fatalf("Assets() = %v; want 64000 bytes of audio (2 s of tone)", err)
	}
}

// TestCheckAudioFile checks that a relative audio file is found beside the
// configuration file and that Check names the field and the file of one
// that is not PCM16 mono 16 kHz.
func TestCheckAudioFile(t *testing.T) {
	dir := t.TempDir()
	good := realtime.EncodeWAV(realtime.Tone(500 * time.Millisecond))
	stereo := realtime.EncodeWAV(realtime.Tone(500 * time.Millisecond))
	stereo[22] = 2
	for name, b := range map[string][]byte{"good.wav": good, "stereo.wav": stereo} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	load := func(file string) *Config {
		path := filepath.Join(dir, "llmprober.yml")
		yml := "targets:\n  - name: rt\n    base_url: http://127.0.0.1:8000/v1\n    model: m\n    backend: openai_websocket\n" +
			"    realtime:\n      audio_file: " + file + "\n"
		if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := load("good.wav")
	if err := c.Check(); err != nil {
		t.Fatalf("Check(good.wav) = %v", err)
	}
	if a, err := c.Targets[0].Assets(); err != nil || len(a.Audio) != 16000 {
		t.Fatalf("Assets() = %v; want 16000 bytes of audio", err)
	}
	c = load("stereo.wav")
	want := filepath.Join(dir, "llmprober.yml") + ":7: targets[0].realtime.audio_file: audio file " + filepath.Join(dir, "stereo.wav") +
		": not a RIFF/WAVE file of PCM16 mono at 16 kHz: format 1, 2 channels, 16000 Hz, 16 bits"
	if err := c.Check(); err == nil || err.Error() != want {
		t.Errorf("Check(stereo.wav) = %v\nwant %s", err, want)
	}
	c = load("missing.wav")
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "targets[0].realtime.audio_file: could not read audio: could not open audio file: no such file or directory") {
		t.Errorf("Check(missing.wav) = %v", err)
	}
}

// TestCheckAudioFileOutlastsTimeout checks that Check refuses an audio
// file that takes at least the timeout to send with pacing realtime (500
// ms of audio, timeout 500ms), and accepts it with pacing fast or a
// longer timeout.
func TestCheckAudioFileOutlastsTimeout(t *testing.T) {
	dir := t.TempDir()
	wav := filepath.Join(dir, "speech.wav")
	if err := os.WriteFile(wav, realtime.EncodeWAV(realtime.Tone(500*time.Millisecond)), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "llmprober.yml")
	for _, c := range []struct{ timeout, pacing, want string }{
		{"500ms", "realtime", path + ":8: targets[0].realtime.audio_file: audio file " + wav +
			": pacing realtime sends the audio over its own duration (500ms), so every request would time out: " +
			"timeout (500ms) must exceed it; raise timeout, shorten the audio or use pacing fast"},
		{"500ms", "fast", ""},
		{"501ms", "realtime", ""},
	} {
		yml := "targets:\n  - name: rt\n    base_url: http://127.0.0.1:8000/v1\n    model: m\n    backend: openai_websocket\n" +
			"    timeout: " + c.timeout + "\n    realtime:\n      audio_file: speech.wav\n      pacing: " + c.pacing + "\n"
		if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		err = cfg.Check()
		if (c.want == "" && err != nil) || (c.want != "" && (err == nil || err.Error() != c.want)) {
			t.Errorf("timeout %s, pacing %s: Check() = %v\nwant %q", c.timeout, c.pacing, err, c.want)
		}
	}
}
