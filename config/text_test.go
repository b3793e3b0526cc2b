package config

import (
	"strings"
	"testing"
)

func TestTextErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"valid, with a byte order mark and CRLF", "\ufefftargets:\r\n  - name: a\r\n", ""},
		{"invalid UTF-8", "targets:\n  - name: a\n    model: ab\xffc\n", "c.yml:3: column 14: invalid UTF-8 (byte 0xff); the configuration must be UTF-8 text"},
		{"columns count characters", "a: \"日本\xfe\"\n", "c.yml:1: column 7: invalid UTF-8 (byte 0xfe); the configuration must be UTF-8 text"},
		{"control character", "targets:\n  - name: a\x01b\n", "c.yml:2: column 12: control character U+0001 is not allowed"},
		{"C1 control character", "a: \u0080\n", "c.yml:1: column 4: control character U+0080 is not allowed"},
		{"lines of carriage returns", "a: 1\rb: 2\r\x00", "c.yml:3: column 1: control character U+0000 is not allowed"},
		{"UTF-16", "\xff\xfet\x00a\x00", "c.yml:1: the file is UTF-16 text; save it as UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := textError([]byte(tt.in), "c.yml")
			got := ""
			if fe != nil {
				got = fe.Error()
			}
			if got != tt.want {
				t.Errorf("textError = %q, want %q", got, tt.want)
			}
		})
	}
	// Parse reports it, with nothing else.
	_, err := Parse([]byte("targets:\n  - name: \xff\n"), "c.yml")
	if err == nil || err.Error() != "c.yml:2: column 11: invalid UTF-8 (byte 0xff); the configuration must be UTF-8 text" {
		t.Errorf("Parse: %v", err)
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"embeddings", `"embeddings"`},
		{"max_completion_token5", `"max_completion_token5"`},
		{"30 seconds", `"30 seconds"`},
		{"a\x00b", `"a\x00b"`},
		{"0123456789abcdef", `(16 characters, not shown)`},
		{"sk-0123456789abcdefXYZ", `(22 characters, not shown)`},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaa", `"aaaaaaaaaaaaaaaaaaaaaaaaaaaa"`},
		{strings.Repeat("x", 33), `(33 characters, not shown)`},
		{"550e8400-e29b-41d4-a716-446655440000", `(36 characters, not shown)`},
		{"日本語", `"日本語"`},
	}
	for _, tt := range tests {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
