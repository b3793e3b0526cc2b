package probe

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestText: every shape of a text field servers send is read as text or
// no text, and every other JSON type, wherever it sits in the shape, is
// ErrText.
func TestText(t *testing.T) {
	has := []string{`"Hi"`, `["","Hi"]`, `[{"type":"text","text":"Hi"}]`, `{"type":"text","text":"Hi"}`,
		`[{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"Hi"}]`,
		`[{"type":"text","text":{"value":"Hi","annotations":[]}}]`, `{"text":{"value":"Hi"}}`, `[null,"Hi"]`}
	hasNot := []string{`null`, `""`, `[]`, `[""]`, `[null]`, `{}`, `[{"type":"image_url","image_url":{"url":"x"}}]`,
		`[{"type":"text","text":""}]`, `[{"type":"text","text":null}]`, `{"text":{"value":""}}`, `{"text":{"value":null}}`, `{"text":{}}`}
	malformed := []string{`5`, `true`, `false`, `[5]`, `[true]`, `[["Hi"]]`, `[{"type":"text","text":5}]`, `{"type":"text","text":true}`,
		`[{"text":["Hi"]}]`, `[{"type":"text","text":{"value":5}}]`, `{"text":{"value":["Hi"]}}`}
	read := func(v string) (Text, error) {
		var x struct {
			T Text `json:"t"`
		}
		err := json.Unmarshal([]byte(`{"t":`+v+`}`), &x)
		return x.T, err
	}
	for _, v := range has {
		if got, err := read(v); err != nil || !got {
			t.Errorf("%s: text %v, error %v; want text", v, got, err)
		}
	}
	for _, v := range hasNot {
		if got, err := read(v); err != nil || got {
			t.Errorf("%s: text %v, error %v; want no text", v, got, err)
		}
	}
	for _, v := range malformed {
		if _, err := read(v); !errors.Is(err, ErrText) {
			t.Errorf("%s: error %v, want ErrText", v, err)
		}
	}
}
