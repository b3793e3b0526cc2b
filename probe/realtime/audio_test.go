package realtime_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/realtime"
)

func TestWAV(t *testing.T) {
	pcm := realtime.Tone(250 * time.Millisecond)
	if len(pcm) != 4000*2 {
		t.Fatalf("tone of 250ms has %d bytes, want 8000", len(pcm))
	}
	got, err := realtime.ParseWAV(realtime.EncodeWAV(pcm))
	if err != nil || string(got) != string(pcm) {
		t.Fatalf("round trip: %v, %d bytes", err, len(got))
	}
	if n := len(realtime.Chunks(pcm, 100*time.Millisecond)); n != 3 {
		t.Errorf("250ms in chunks of 100ms: %d chunks, want 3", n)
	}
	withFormat := func(off int, v uint16) []byte {
		b := realtime.EncodeWAV(pcm)
		binary.LittleEndian.PutUint16(b[off:], v)
		return b
	}
	stereo, rate := withFormat(22, 2), realtime.EncodeWAV(pcm)
	binary.LittleEndian.PutUint32(rate[24:], 44100)
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"not RIFF":   {[]byte("ID3 an mp3"), "no RIFF/WAVE header"},
		"stereo":     {stereo, "format 1, 2 channels, 16000 Hz, 16 bits"},
		"44.1 kHz":   {rate, "format 1, 1 channels, 44100 Hz, 16 bits"},
		"float":      {withFormat(20, 3), "format 3"},
		"8 bits":     {withFormat(34, 8), "8 bits"},
		"truncated":  {realtime.EncodeWAV(pcm)[:100], `chunk "data" is truncated`},
		"no data":    {realtime.EncodeWAV(pcm)[:36], "no data chunk"},
		"empty data": {realtime.EncodeWAV(nil), "no samples"},
	} {
		_, err := realtime.ParseWAV(c.b)
		if !errors.Is(err, realtime.ErrWAVFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrWAVFormat with %q", name, err, c.want)
		}
	}
}

func TestLoadWAVNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "speech.wav")
	if err := os.WriteFile(path, []byte("RIFF....WAVE"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := realtime.LoadWAV(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want it to name %s", err, path)
	}
}

func FuzzParseWAV(f *testing.F) {
	f.Add(realtime.EncodeWAV(realtime.Tone(10 * time.Millisecond)))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEdata\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pcm, err := realtime.ParseWAV(b)
		if err == nil && (len(pcm) == 0 || len(pcm)%2 != 0) {
			t.Fatalf("accepted %d bytes of samples", len(pcm))
		}
	})
}

// TestLoadWAVLimit checks that a file of 10 minutes of audio (19,200,000
// bytes of samples) loads, and that one more sample, or a file larger
// than 10 minutes of samples and 1 MiB of headers, is refused with the
// file's name and the limit.
func TestLoadWAVLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const tenMinutes = 600 * 16000 * 2
	if d := realtime.AudioDuration(make([]byte, tenMinutes)); d != 10*time.Minute {
		t.Errorf("AudioDuration(19200000 bytes) = %v, want 10m", d)
	}
	pcm, err := realtime.LoadWAV(write("ten.wav", realtime.EncodeWAV(make([]byte, tenMinutes))))
	if err != nil || len(pcm) != tenMinutes {
		t.Errorf("10 minutes: %d bytes, %v; want 19200000, no error", len(pcm), err)
	}
	longer := write("longer.wav", realtime.EncodeWAV(make([]byte, tenMinutes+2)))
	want := "audio file " + longer + " holds 10m0.0000625s of audio, more than the limit of 10m0s"
	if _, err := realtime.LoadWAV(longer); err == nil || err.Error() != want {
		t.Errorf("10 minutes and a sample: error %v\nwant %s", err, want)
	}
	huge := write("huge.wav", make([]byte, tenMinutes+1<<20+1))
	want = "audio file " + huge + " is larger than 20248576 bytes: more than 10m0s of PCM16 mono 16 kHz audio"
	if _, err := realtime.LoadWAV(huge); err == nil || err.Error() != want {
		t.Errorf("huge file: error %v\nwant %s", err, want)
	}
}
