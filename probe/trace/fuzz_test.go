package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// checkParsed asserts what every successful parse guarantees.
func checkParsed(t *testing.T, tr *Trace) {
	t.Helper()
	if len(tr.Requests) == 0 {
		t.Fatal("parsed a trace without requests")
	}
	var last int64 = -1
	turns := map[string]int{}
	for _, r := range tr.Requests {
		if r.PromptTokens < 1 || r.OutputTokens < 1 || r.PromptTokens > MaxTokens || r.OutputTokens > MaxTokens {
			t.Fatalf("line %d: tokens %d/%d out of range", r.Line, r.PromptTokens, r.OutputTokens)
		}
		if r.HasTimestamp {
			if r.Timestamp < 0 || int64(r.Timestamp) < last {
				t.Fatalf("line %d: timestamp %v after %v", r.Line, r.Timestamp, last)
			}
			last = int64(r.Timestamp)
		}
		if r.ConversationID == "" && r.Turn != 0 || r.ConversationID != "" && r.Turn <= turns[r.ConversationID] {
			t.Fatalf("line %d: turn %d of %q", r.Line, r.Turn, r.ConversationID)
		}
		turns[r.ConversationID] = r.Turn
	}
}

// fuzzParse parses data in format and checks the result or the error.
func fuzzParse(t *testing.T, data []byte, format string) {
	tr, err := Parse(bytes.NewReader(data), "fuzz", format)
	if err != nil {
		var te *Error
		if !errors.As(err, &te) || te.File != "fuzz" {
			t.Fatalf("error %v (%T) is not an *Error naming the file", err, err)
		}
		return
	}
	checkParsed(t, tr)
}

func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0.5, "prompt_tokens": 20, "output_tokens": 6, "conversation_id": "c1", "turn": 2}`))
	f.Add([]byte("{\"prompt_tokens\": 1, \"output_tokens\": 1}\r\n\n{\"timestamp\": 1e300}"))
	f.Add([]byte(`{"timestamp": 1, "prompt_tokens": 1, "output_tokens": 1}` + "\n" + `{"timestamp": 0, "prompt_tokens": 1, "output_tokens": 1}`))
	f.Add([]byte(`[{"turn": "x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatJSONL) })
}

func FuzzParseAzureCSV(f *testing.F) {
	for _, name := range []string{"azure_conv_head200.csv", "azure_code_head200.csv"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 400)])
	}
	f.Add([]byte("GeneratedTokens,TIMESTAMP,ContextTokens,x\n5,2023-11-16 18:15:46.6805900,3,\"q\"\"\"\n"))
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n0001-01-01 00:00:00,1,1\n9999-12-31 23:59:59.9999999,1,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, FormatAzureCSV) })
}
