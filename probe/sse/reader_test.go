package sse

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestReaderEvents(t *testing.T) {
	tests := []struct {
		name  string
		input string
		max   int
		want  []Event
		err   error // the error after the events; io.EOF for a clean end
	}{
		{
			name:  "one event with LF",
			input: "data: hello\n\n",
			want:  []Event{{Data: "hello"}},
		},
		{
			name:  "CRLF line endings",
			input: "data: a\r\n\r\ndata: b\r\n\r\n",
			want:  []Event{{Data: "a"}, {Data: "b"}},
		},
		{
			name:  "CR line endings",
			input: "data: a\r\rdata: b\r\r",
			want:  []Event{{Data: "a"}, {Data: "b"}},
		},
		{
			name:  "mixed line endings",
			input: "data: a\r\ndata: b\rdata: c\n\r\n",
			want:  []Event{{Data: "a\nb\nc"}},
		},
		{
			name:  "CR then LF is one line ending, not a line and a blank line",
			input: "event: x\r\ndata: y\r\n\r\n",
			want:  []Event{{Type: "x", Data: "y"}},
		},
		{
			name:  "several data lines are joined with newlines",
			input: "data: {\"a\":\ndata: 1}\n\n",
			want:  []Event{{Data: "{\"a\":\n1}"}},
		},
		{
			name:  "the space after the colon is optional and only one is removed",
			input: "data:x\n\ndata:  y\n\n",
			want:  []Event{{Data: "x"}, {Data: " y"}},
		},
		{
			name:  "comments and keep-alive blank lines are skipped",
			input: ": keep-alive\n\n\n\n:\ndata: a\n: in between\n\n: ping\n\n",
			want:  []Event{{Data: "a"}},
		},
		{
			name:  "event type and id",
			input: "event: error\nid: 7\ndata: boom\n\n",
			want:  []Event{{Type: "error", Data: "boom", ID: "7"}},
		},
		{
			name:  "the event ID carries over and the type does not",
			input: "event: a\nid: 1\ndata: x\n\ndata: y\n\nid\ndata: z\n\n",
			want:  []Event{{Type: "a", Data: "x", ID: "1"}, {Data: "y", ID: "1"}, {Data: "z"}},
		},
		{
			name:  "an id containing NUL is ignored",
			input: "id: 1\ndata: x\n\nid: 2\x003\ndata: y\n\n",
			want:  []Event{{Data: "x", ID: "1"}, {Data: "y", ID: "1"}},
		},
		{
			name:  "retry is ignored and non-standard fields are kept in order",
			input: "retry: 100\nfoo: bar\nDATA: no\ndata: yes\nfoo:  baz\n\n",
			want:  []Event{{Data: "yes", Extra: []Field{{"foo", "bar"}, {"DATA", "no"}, {"foo", " baz"}}}},
		},
		{
			name:  "llama.cpp's error field without data is dispatched",
			input: "error: {\"code\":400,\"message\":\"too long\"}\n\ndata: [DONE]\n\n",
			want:  []Event{{Extra: []Field{{"error", `{"code":400,"message":"too long"}`}}}, {Data: "[DONE]"}},
		},
		{
			name:  "a field without colon is a non-standard field with an empty value",
			input: "ping\n\n",
			want:  []Event{{Extra: []Field{{"ping", ""}}}},
		},
		{
			name:  "an id, a retry or comments alone dispatch nothing",
			input: "id: 4\n\nretry: 5\n\n: x\n\n",
		},
		{
			name:  "non-standard values count toward the limit",
			input: "error: 12345678\ndata: 1\n\n",
			max:   8,
			err:   ErrEventTooLarge,
		},
		{
			name:  "a field without colon has an empty value",
			input: "data\ndata\n\n",
			want:  []Event{{Data: "\n"}},
		},
		{
			name:  "an empty data line dispatches an empty event",
			input: "data:\n\n",
			want:  []Event{{Data: ""}},
		},
		{
			name:  "a type without data is dispatched without data, and is reset",
			input: "event: ping\n\ndata: x\n\nevent: error\n\n",
			want:  []Event{{Type: "ping"}, {Data: "x"}, {Type: "error"}},
		},
		{
			name:  "a final event without a blank line is dispatched at EOF",
			input: "data: a\n\ndata: [DONE]",
			want:  []Event{{Data: "a"}, {Data: "[DONE]"}},
		},
		{
			name:  "a final event with one line ending is dispatched at EOF",
			input: "data: [DONE]\r\n",
			want:  []Event{{Data: "[DONE]"}},
		},
		{
			name:  "several events in one read",
			input: "data: 1\n\ndata: 2\n\ndata: 3\n\n",
			want:  []Event{{Data: "1"}, {Data: "2"}, {Data: "3"}},
		},
		{
			name:  "multi-byte UTF-8 characters survive any split",
			input: "data: héllo wörld 日本語 🙂\n\n",
			want:  []Event{{Data: "héllo wörld 日本語 🙂"}},
		},
		{
			name:  "a leading byte order mark is ignored",
			input: "\xEF\xBB\xBFdata: x\n\n",
			want:  []Event{{Data: "x"}},
		},
		{
			name:  "empty input",
			input: "",
		},
		{
			name:  "only keep-alives",
			input: ": ping\n\n: ping\n\n",
		},
		{
			name: "data of exactly the limit is accepted",
			// "data: " is 6 bytes, so the 14-byte line carries 8 data bytes = max.
			input: "data: 12345678\n\n",
			max:   14,
			want:  []Event{{Data: "12345678"}},
		},
		{
			name:  "a line longer than the limit fails",
			input: "data: 1\n\ndata: 123456789\n\n",
			max:   14,
			want:  []Event{{Data: "1"}},
			err:   ErrEventTooLarge,
		},
		{
			// Three lines of 4 data bytes each: 4+1+4 = 9 fits, 9+1+4 = 14 > 10.
			name:  "event data longer than the limit fails",
			input: "data: 1234\ndata: 5678\ndata: 9abc\n\n",
			max:   10,
			err:   ErrEventTooLarge,
		},
		{
			// Each line without a colon is a field named "x", charged
			// 1+64 bytes: 3 fit in 200 (195), the fourth does not.
			name:  "lines without a colon are charged as fields",
			input: "x\nx\nx\nx\n\n",
			max:   200,
			err:   ErrEventTooLarge,
		},
		{
			// "ab: c" is charged 2+1+64 = 67 bytes.
			name:  "a field of exactly the limit is accepted",
			input: "ab: c\n\n",
			max:   67,
			want:  []Event{{Extra: []Field{{Name: "ab", Value: "c"}}}},
		},
		{
			name:  "a field one byte over the limit fails",
			input: "ab: c\n\n",
			max:   66,
			err:   ErrEventTooLarge,
		},
		{
			name:  "MaxFields fields are accepted",
			input: strings.Repeat("a:\n", MaxFields) + "\n",
			want:  []Event{{Extra: slices.Repeat([]Field{{Name: "a"}}, MaxFields)}},
		},
		{
			name:  "one field more than MaxFields fails",
			input: strings.Repeat("a:\n", MaxFields+1) + "\n",
			err:   ErrEventTooLarge,
		},
		{
			// Lines of 15 and 14 bytes fit; type and data are 8+8 = 16 > 15.
			name:  "the event type is charged with the data",
			input: "event: abcdefgh\ndata: 12345678\n\n",
			max:   15,
			err:   ErrEventTooLarge,
		},
		{
			name:  "an unterminated line longer than the limit fails",
			input: "data: 123456789",
			max:   14,
			err:   ErrEventTooLarge,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr := tt.err
			if wantErr == nil {
				wantErr = io.EOF
			}
			for _, d := range deliveries([]byte(tt.input)) {
				got, err := readAll(NewReader(d.r, tt.max))
				if !errors.Is(err, wantErr) {
					t.Fatalf("%s: error = %v, want %v", d.name, err, wantErr)
				}
				if !equalEvents(got, tt.want) {
					t.Fatalf("%s: events = %+v, want %+v", d.name, got, tt.want)
				}
			}
		})
	}
}

func equalEvents(a, b []Event) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

func TestReaderSplitCRLF(t *testing.T) {
	// The CR and LF arrive in different reads; the LF must not count as a
	// second (blank) line, which would dispatch "a" and "b" separately.
	r := NewReader(&splitReader{data: []byte("data: a\r\ndata: b\n\n"), cuts: []int{8}}, 0)
	ev, err := r.Next()
	if err != nil || ev.Data != "a\nb" {
		t.Fatalf("Next = %+v, %v; want data %q", ev, err, "a\nb")
	}
}

func TestReaderErrorsAreSticky(t *testing.T) {
	tests := []struct {
		name  string
		input io.Reader
		want  error
	}{
		{"end of stream", strings.NewReader("data: x\n\n"), io.EOF},
		{"event too large", strings.NewReader("data: 0123456789\n\n"), ErrEventTooLarge},
		{"read failure", io.MultiReader(strings.NewReader("data: x\n\n"), errReader{io.ErrUnexpectedEOF}), io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.input, 10)
			_, err := readAll(r)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			if _, again := r.Next(); !errors.Is(again, tt.want) {
				t.Fatalf("second error = %v, want %v", again, tt.want)
			}
		})
	}
}

func TestReaderDiscardsPendingEventOnReadFailure(t *testing.T) {
	// "data: y" has no blank line when the connection fails: it is not dispatched.
	src := io.MultiReader(strings.NewReader("data: x\n\ndata: y\n"), errReader{io.ErrUnexpectedEOF})
	got, err := readAll(NewReader(src, 0))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error = %v, want unexpected EOF", err)
	}
	if want := []Event{{Data: "x"}}; !equalEvents(got, want) {
		t.Fatalf("events = %+v, want %+v", got, want)
	}
}

func TestReaderNoProgress(t *testing.T) {
	_, err := NewReader(errReader{nil}, 0).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("error = %v, want io.ErrNoProgress", err)
	}
}

// errReader returns nothing and err on every Read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
