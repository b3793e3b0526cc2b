package trace

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestReadAzureExcerpts(t *testing.T) {
	tests := []struct {
		file        string
		first, last Request
	}{
		{
			// First row 18:15:46.6805900 (374, 44); the last, line 201, is
			// 18:16:47.9441270 − 18:15:46.6805900 = 61.263537 s later.
			file:  "azure_conv_head200.csv",
			first: Request{Line: 2, HasTimestamp: true, PromptTokens: 374, OutputTokens: 44},
			last:  Request{Line: 201, Timestamp: 61263537 * time.Microsecond, HasTimestamp: true, PromptTokens: 1143, OutputTokens: 409},
		},
		{
			// 18:20:23.0695450 − 18:17:03.9799600 = 199.0895850 s.
			file:  "azure_code_head200.csv",
			first: Request{Line: 2, HasTimestamp: true, PromptTokens: 4808, OutputTokens: 10},
			last:  Request{Line: 201, Timestamp: 199089585 * time.Microsecond, HasTimestamp: true, PromptTokens: 65, OutputTokens: 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr, err := Read(filepath.Join("testdata", tt.file), "")
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Requests) != 200 {
				t.Fatalf("%d requests, want 200", len(tr.Requests))
			}
			if got := tr.Requests[0]; got != tt.first {
				t.Errorf("first = %+v, want %+v", got, tt.first)
			}
			if got := tr.Requests[199]; got != tt.last {
				t.Errorf("last = %+v, want %+v", got, tt.last)
			}
		})
	}
}

func TestAzureSecondRow(t *testing.T) {
	tr, err := Read(filepath.Join("testdata", "azure_conv_head200.csv"), FormatAzureCSV)
	if err != nil {
		t.Fatal(err)
	}
	// 18:15:50.9951690 − 18:15:46.6805900 = 4.3145790 s.
	if got := tr.Requests[1].Timestamp; got != 4314579*time.Microsecond {
		t.Errorf("second timestamp %v, want 4.314579s", got)
	}
}

func TestParseJSONL(t *testing.T) {
	data := "{\"timestamp\": 0, \"prompt_tokens\": 10, \"output_tokens\": 5}\r\n" +
		"\n" +
		`{"timestamp": 0.5, "prompt_tokens": 20, "output_tokens": 6, "conversation_id": "c1", "extra": [1]}` + "\n" +
		`{"prompt_tokens": 7, "output_tokens": 1}` + "\n" +
		`{"timestamp": 1.25, "prompt_tokens": 30, "output_tokens": 7, "conversation_id": "c1", "turn": 2}` + "\n" +
		`{"timestamp": null, "prompt_tokens": 8, "output_tokens": 2, "conversation_id": "c1"}`
	tr, err := Parse(strings.NewReader(data), "t.jsonl", FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := []Request{
		{Line: 1, HasTimestamp: true, PromptTokens: 10, OutputTokens: 5},
		// Turn 1: the first of c1, numbered when not given.
		{Line: 3, Timestamp: 500 * time.Millisecond, HasTimestamp: true, PromptTokens: 20, OutputTokens: 6, ConversationID: "c1", Turn: 1},
		{Line: 4, PromptTokens: 7, OutputTokens: 1},
		{Line: 5, Timestamp: 1250 * time.Millisecond, HasTimestamp: true, PromptTokens: 30, OutputTokens: 7, ConversationID: "c1", Turn: 2},
		// A null timestamp is none; the turn follows 2.
		{Line: 6, PromptTokens: 8, OutputTokens: 2, ConversationID: "c1", Turn: 3},
	}
	if !reflect.DeepEqual(tr.Requests, want) {
		t.Errorf("requests =\n%+v\nwant\n%+v", tr.Requests, want)
	}
}

func TestParseErrors(t *testing.T) {
	const ok = `{"timestamp": 1, "prompt_tokens": 1, "output_tokens": 1}` + "\n"
	const header = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	tests := []struct {
		name, format, data, want string
	}{
		{"empty jsonl", FormatJSONL, "", "f: trace is empty: it holds no requests"},
		{"blank jsonl", FormatJSONL, "\n \n", "f: trace is empty: it holds no requests"},
		{"not json", FormatJSONL, ok + "{oops\n", "f:2: not a JSON object: syntax error at byte 2"},
		{"json array", FormatJSONL, "[1]\n", "f:1: not a JSON object: the line is a JSON array"},
		{"negative timestamp", FormatJSONL, `{"timestamp": -1, "prompt_tokens": 1, "output_tokens": 1}`, "f:1: timestamp: must not be negative, got -1"},
		{"string timestamp", FormatJSONL, `{"timestamp": "1s", "prompt_tokens": 1, "output_tokens": 1}`, `f:1: timestamp: must be a number of seconds, got "\"1s\""`},
		{"huge timestamp", FormatJSONL, `{"timestamp": 1e10, "prompt_tokens": 1, "output_tokens": 1}`, "f:1: timestamp: must be at most 1e+09 seconds, got 1e+10"},
		{"unsorted", FormatJSONL, ok + `{"timestamp": 0.5, "prompt_tokens": 1, "output_tokens": 1}`, "f:2: timestamp: timestamps are not sorted: 500ms is earlier than 1s at line 1"},
		{"missing prompt", FormatJSONL, `{"timestamp": 0, "output_tokens": 1}`, "f:1: prompt_tokens: required"},
		{"zero output", FormatJSONL, `{"prompt_tokens": 3, "output_tokens": 0}`, "f:1: output_tokens: must be an integer from 1 to 1048576"},
		{"fractional tokens", FormatJSONL, `{"prompt_tokens": 2.5, "output_tokens": 1}`, `f:1: prompt_tokens: must be an integer from 1 to 1048576, got "2.5"`},
		{"numeric conversation", FormatJSONL, `{"prompt_tokens": 2, "output_tokens": 1, "conversation_id": 7}`, `f:1: conversation_id: must be a non-empty string, got "7"`},
		{"turn without conversation", FormatJSONL, `{"prompt_tokens": 2, "output_tokens": 1, "turn": 2}`, "f:1: turn: needs a conversation_id"},
		{"zero turn", FormatJSONL, `{"prompt_tokens": 2, "output_tokens": 1, "conversation_id": "a", "turn": 0}`, `f:1: turn: must be an integer >= 1, got "0"`},
		{"turn goes back", FormatJSONL, `{"prompt_tokens": 2, "output_tokens": 1, "conversation_id": "a", "turn": 1}` + "\n" +
			`{"prompt_tokens": 2, "output_tokens": 1, "conversation_id": "a", "turn": 1}`,
			`f:2: turn: must be 2, got 1: the turns of conversation "a" start at 1 and increase by 1 (turn 1 at line 1)`},
		{"first turn not 1", FormatJSONL, `{"prompt_tokens": 2, "output_tokens": 1, "conversation_id": "a", "turn": 2}`,
			`f:1: turn: must be 1, got 2: the turns of conversation "a" start at 1 and increase by 1`},
		{"turn skips", FormatJSONL, `{"prompt_tokens": 2, "output_tokens": 1, "conversation_id": "a"}` + "\n" + ok +
			`{"prompt_tokens": 2, "output_tokens": 1, "conversation_id": "a", "turn": 3}`,
			`f:3: turn: must be 2, got 3: the turns of conversation "a" start at 1 and increase by 1 (turn 1 at line 1)`},
		{"duplicate key", FormatJSONL, `{"timestamp": 1, "prompt_tokens": 1, "output_tokens": 1, "timestamp": 2}`,
			"f:1: timestamp: duplicate key"},
		{"duplicate key in other case", FormatJSONL, `{"prompt_tokens": 1, "output_tokens": 1, "Prompt_Tokens": 2}`,
			`f:1: prompt_tokens: duplicate key (also as "Prompt_Tokens")`},
		{"duplicate unknown key", FormatJSONL, `{"prompt_tokens": 1, "output_tokens": 1, "note": "a", "note": "b"}`,
			`f:1: note: duplicate key`},
		{"long line", FormatJSONL, strings.Repeat(" ", MaxLineBytes+1), "f:1: line is longer than 1048576 bytes"},
		{"empty csv", FormatAzureCSV, "", "f: trace is empty: it has no header and no requests"},
		{"header only", FormatAzureCSV, header, "f: trace is empty: it holds no requests"},
		{"missing column", FormatAzureCSV, "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.6805900,3\n", "f:1: header: missing column GeneratedTokens (want TIMESTAMP,ContextTokens,GeneratedTokens)"},
		{"short row", FormatAzureCSV, header + "2023-11-16 18:15:46.6805900,3\n", "f:2: wrong number of fields"},
		{"bad time", FormatAzureCSV, header + "yesterday,3,4\n", `f:2: TIMESTAMP: must be a time such as "2023-11-16 18:15:46.6805900", got "yesterday"`},
		{"non-numeric", FormatAzureCSV, header + "2023-11-16 18:15:46.6805900,abc,4\n", `f:2: ContextTokens: must be an integer from 1 to 1048576, got "abc"`},
		{"zero generated", FormatAzureCSV, header + "2023-11-16 18:15:46.6805900,3,0\n", `f:2: GeneratedTokens: must be an integer from 1 to 1048576, got "0"`},
		{"unsorted csv", FormatAzureCSV, header + "2023-11-16 18:15:46.5,3,4\n2023-11-16 18:15:46.25,3,4\n",
			"f:3: TIMESTAMP: timestamps are not sorted: -250ms is earlier than 0s at line 2"},
		{"unknown format", "parquet", "", `could not read trace f: unknown trace format "parquet" (supported: jsonl, azure_csv)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.data), "f", tt.format)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

func TestReadMissingFile(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "absent.jsonl"), "")
	if !errors.Is(err, os.ErrNotExist) || err.Error() != "could not read trace: could not open trace file: no such file or directory" {
		t.Errorf("error = %v, want could not read trace wrapping not-exist", err)
	}
}

func TestFormatFor(t *testing.T) {
	for name, want := range map[string]string{"a.csv": FormatAzureCSV, "B.CSV": FormatAzureCSV, "a.jsonl": FormatJSONL, "a": FormatJSONL} {
		if got := FormatFor(name); got != want {
			t.Errorf("FormatFor(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestTooLargeFile(t *testing.T) {
	// A reader that never ends is cut at the size limit, lowered here to 1 KiB.
	maxFileBytes = 1 << 10
	defer func() { maxFileBytes = MaxFileBytes }()
	_, err := Parse(endless{}, "big", FormatJSONL)
	var te *Error
	if !errors.As(err, &te) || te.Msg != "file is larger than 1024 bytes" {
		t.Errorf("error = %v, want file is larger", err)
	}
}

// endless yields blank lines for ever.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	return len(p), nil
}

func TestPeriod(t *testing.T) {
	at := func(ds ...time.Duration) *Trace {
		tr := &Trace{}
		for _, d := range ds {
			tr.Requests = append(tr.Requests, Request{Timestamp: d, HasTimestamp: d >= 0})
		}
		return tr
	}
	tests := []struct {
		name string
		tr   *Trace
		want time.Duration
	}{
		// Last 3 s plus the mean gap (3 − 0)/(3 − 1) = 1.5 s; the row
		// without a timestamp (-1) is left out.
		{"mean gap", at(0, time.Second, -1, 3*time.Second), 4500 * time.Millisecond},
		// Starting at 2 s: 6 + (6 − 2)/2 = 8 s.
		{"offset start", at(2*time.Second, 4*time.Second, 6*time.Second), 8 * time.Second},
		{"one row", at(5 * time.Second), 5 * time.Second},
		{"all at zero", at(0, 0), 0},
		{"no timestamps", at(-1, -1), 0},
	}
	for _, tt := range tests {
		if got := tt.tr.Period(); got != tt.want {
			t.Errorf("%s: period %v, want %v", tt.name, got, tt.want)
		}
	}
}
