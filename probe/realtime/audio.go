package realtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

// maxWAVBytes bounds the size of an audio file read: 64 MiB, about 35
// minutes of 16 kHz PCM16 mono.
const maxWAVBytes = 64 << 20

// ErrWAVFormat is wrapped by every error about a WAV file that is not
// RIFF/WAVE PCM16 mono at 16 kHz.
var ErrWAVFormat = errors.New("not a RIFF/WAVE file of PCM16 mono at 16 kHz")

// LoadWAV reads the WAV file at path and returns its samples: PCM16
// little-endian mono at 16 kHz, the format the protocol carries. Other
// formats, truncated files and files without samples are errors naming the
// file and wrapping ErrWAVFormat.
func LoadWAV(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("could not read audio file: %w", err)
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, maxWAVBytes+1))
	if err != nil {
		return nil, fmt.Errorf("could not read audio file %s: %w", path, err)
	}
	if len(b) > maxWAVBytes {
		return nil, fmt.Errorf("audio file %s is larger than %d bytes", path, maxWAVBytes)
	}
	pcm, err := ParseWAV(b)
	if err != nil {
		return nil, fmt.Errorf("audio file %s: %w", path, err)
	}
	return pcm, nil
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
