package realtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llmprober/llmprober/probe/localfile"
)

// MaxAudioDuration bounds the audio of a file LoadWAV accepts; the
// configuration's audio_duration has the same bound.
const MaxAudioDuration = 10 * time.Minute

// maxWAVBytes bounds the size of an audio file read: MaxAudioDuration of
// 16 kHz PCM16 mono (19,200,000 bytes) and 1 MiB of headers, the limit of
// localfile.Audio.
const maxWAVBytes = int64(MaxAudioDuration/time.Second)*SampleRate*bytesPerSample + 1<<20

// ErrWAVFormat is wrapped by every error about a WAV file that is not
// RIFF/WAVE PCM16 mono at 16 kHz.
var ErrWAVFormat = errors.New("not a RIFF/WAVE file of PCM16 mono at 16 kHz")

// LoadWAV reads the WAV file at path and returns its samples: PCM16
// little-endian mono at 16 kHz, the format the protocol carries, at most
// MaxAudioDuration. Other formats, truncated files and files without
// samples are errors naming the file and wrapping ErrWAVFormat; longer
// audio is an error naming the file and the limit.
func LoadWAV(path string) ([]byte, error) {
	b, err := localfile.ReadFile(path, localfile.Audio)
	switch {
	case errors.Is(err, localfile.ErrTooLarge):
		return nil, fmt.Errorf("audio file %s is larger than %d bytes: more than %v of PCM16 mono 16 kHz audio",
			path, maxWAVBytes, MaxAudioDuration)
	case err != nil:
		return nil, fmt.Errorf("could not read audio: %w", err)
	}
	pcm, err := ParseWAV(b)
	if err != nil {
		return nil, fmt.Errorf("audio file %s: %w", path, err)
	}
	if d := AudioDuration(pcm); d > MaxAudioDuration {
		return nil, fmt.Errorf("audio file %s holds %v of audio, more than the limit of %v", path, d, MaxAudioDuration)
	}
	return pcm, nil
}

// AudioDuration returns the duration of pcm, PCM16 mono at 16 kHz.
func AudioDuration(pcm []byte) time.Duration {
	return time.Duration(len(pcm)/bytesPerSample) * time.Second / SampleRate
}

// ParseWAV returns the samples of the WAV file b (see LoadWAV).
func ParseWAV(b []byte) ([]byte, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, fmt.Errorf("%w: no RIFF/WAVE header", ErrWAVFormat)
	}
	var format []byte
	for rest := b[12:]; len(rest) >= 8; {
		id, size := string(rest[0:4]), binary.LittleEndian.Uint32(rest[4:8])
		rest = rest[8:]
		if uint64(size) > uint64(len(rest)) {
			return nil, fmt.Errorf("%w: chunk %q is truncated", ErrWAVFormat, id)
		}
		body := rest[:size]
		switch id {
		case "fmt ":
			format = body
		case "data":
			if err := checkFormat(format); err != nil {
				return nil, err
			}
			if len(body) < bytesPerSample {
				return nil, fmt.Errorf("%w: no samples", ErrWAVFormat)
			}
			return body[:len(body)/bytesPerSample*bytesPerSample], nil
		}
		rest = rest[min(int(size)+int(size&1), len(rest)):]
	}
	return nil, fmt.Errorf("%w: no data chunk", ErrWAVFormat)
}

// checkFormat checks a "fmt " chunk: PCM (format 1), 1 channel, 16000 Hz, 16 bits.
func checkFormat(f []byte) error {
	if len(f) < 16 {
		return fmt.Errorf("%w: no fmt chunk before the data", ErrWAVFormat)
	}
	tag, channels := binary.LittleEndian.Uint16(f[0:2]), binary.LittleEndian.Uint16(f[2:4])
	rate, bits := binary.LittleEndian.Uint32(f[4:8]), binary.LittleEndian.Uint16(f[14:16])
	if tag != 1 || channels != 1 || rate != SampleRate || bits != 16 {
		return fmt.Errorf("%w: format %d, %d channels, %d Hz, %d bits", ErrWAVFormat, tag, channels, rate, bits)
	}
	return nil
}

// EncodeWAV returns pcm (PCM16 mono at 16 kHz) as a WAV file.
func EncodeWAV(pcm []byte) []byte {
	b := make([]byte, 44, 44+len(pcm))
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+len(pcm)))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], SampleRate)
	binary.LittleEndian.PutUint32(b[28:], SampleRate*bytesPerSample)
	binary.LittleEndian.PutUint16(b[32:], bytesPerSample)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(len(pcm)))
	return append(b, pcm...)
}

// Tone returns d of a 440 Hz sine at a third of full scale, PCM16 mono at
// 16 kHz; at least one sample.
func Tone(d time.Duration) []byte {
	n := max(int(d.Seconds()*SampleRate), 1)
	b := make([]byte, n*bytesPerSample)
	for i := range n {
		v := math.Sin(2*math.Pi*440*float64(i)/SampleRate) * math.MaxInt16 / 3
		binary.LittleEndian.PutUint16(b[i*bytesPerSample:], uint16(int16(v)))
	}
	return b
}

// Chunks splits pcm into chunks of d of audio each (the last may be
// shorter); at least one sample per chunk.
func Chunks(pcm []byte, d time.Duration) [][]byte {
	size := max(int(d.Seconds()*SampleRate), 1) * bytesPerSample
	var out [][]byte
	for len(pcm) > 0 {
		n := min(size, len(pcm))
		out = append(out, pcm[:n])
		pcm = pcm[n:]
	}
	return out
}
