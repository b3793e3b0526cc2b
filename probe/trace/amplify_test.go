package trace

import (
	"errors"
	"strings"
	"testing"

	gen "github.com/llmprober/llmprober/probe/internal/endless"
)

// TestAmplification feeds endless adversarial traces, at 16 and 64 MiB,
// with the file bound lowered to 4 MiB: one endless line (JSONL and CSV,
// where the CSV reader has no line bound of its own), endless rows of the
// smallest request (each kept as a 64-byte Request), endless rows of one
// conversation with a long ID (kept once, not once a row), and compressed
// junk. Each ends with an *Error naming the bound it crossed, and the live
// heap while it is read grows by at most maxRetained at both lengths: 64
// bytes a request for the rows that 4 MiB can hold, twice over for the
// growth of the slice, and 2 MiB for the line buffers and slack.
func TestAmplification(t *testing.T) {
	maxFileBytes = 4 << 20
	defer func() { maxFileBytes = MaxFileBytes }()
	const row = `{"prompt_tokens":1,"output_tokens":1}` + "\n"
	const maxRetained = uint64(2*64*(4<<20)/len(row) + 2<<20)
	longID := strings.Repeat("c", 1000)
	csvHead := "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	tests := []struct {
		format string
		shape  gen.Shape
		want   string
	}{
		{FormatJSONL, gen.Shape{Name: "one endless line", Pattern: "x"}, "fuzz:1: line is longer than 1048576 bytes"},
		{FormatJSONL, gen.Shape{Name: "endless tiny rows", Pattern: row}, "fuzz: file is larger than 4194304 bytes"},
		{FormatJSONL, gen.Shape{Name: "one long conversation",
			Pattern: `{"prompt_tokens":1,"output_tokens":1,"conversation_id":"` + longID + `"}` + "\n"},
			"fuzz: file is larger than 4194304 bytes"},
		{FormatJSONL, gen.Shape{Name: "compressed junk", Pattern: gen.Gzip(row)}, "fuzz:1: "},
		{FormatAzureCSV, gen.Shape{Name: "csv: one endless line", Prefix: csvHead, Pattern: "x"},
			"fuzz:2: line is longer than 1048576 bytes"},
		{FormatAzureCSV, gen.Shape{Name: "csv: one endless quoted field", Prefix: csvHead + `"`, Pattern: "x\n"},
			"line is longer than 1048576 bytes"},
		{FormatAzureCSV, gen.Shape{Name: "csv: endless tiny rows", Prefix: csvHead, Pattern: "2023-11-16 18:15:46,1,1\n"},
			"fuzz: file is larger than 4194304 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.shape.Name, func(t *testing.T) {
			for _, n := range []int64{16 << 20, 64 << 20} {
				src := gen.New(tt.shape.Prefix, tt.shape.Pattern, n)
				base := gen.LiveHeap()
				tr, err := Parse(src, "fuzz", tt.format)
				retained := max(src.Peak(), base) - base
				var te *Error
				if tr != nil || !errors.As(err, &te) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("%d MiB: error %v, want an *Error with %q", n>>20, err, tt.want)
				}
				if retained > maxRetained {
					t.Errorf("%d MiB: live heap grew by %d bytes, want at most %d", n>>20, retained, maxRetained)
				}
				t.Logf("%d MiB: live heap grew by at most %d bytes", n>>20, retained)
			}
		})
	}
}
