package probe

import "testing"

// TestParseServerError checks every shape of error report servers send:
// OpenAI, vLLM (nested and old top-level), llama.cpp's error field, TGI,
// FastAPI, realtime error events, plain text.
func TestParseServerError(t *testing.T) {
	tests := []struct {
		name, body string
		want       ServerError
	}{
		{"OpenAI error object", `{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}}`,
			ServerError{"bad", "context_length_exceeded"}},
		{"numeric code", `{"error":{"message":"bad","type":"x","code":400}}`, ServerError{"bad", "400"}},
		{"llama.cpp error field", `{"code":500,"message":"the request exceeds the available context size","type":"server_error"}`,
			ServerError{"the request exceeds the available context size", "500"}},
		{"error string", `{"error":"bad"}`, ServerError{Message: "bad"}},
		{"TGI error string with type", `{"error":"Input validation error","error_type":"validation"}`, ServerError{Message: "Input validation error"}},
		{"vLLM realtime: code beside the error string", `{"type":"error","error":"bad audio","code":"invalid_audio"}`,
			ServerError{"bad audio", "invalid_audio"}},
		{"the error's own code wins", `{"error":{"message":"m","code":504},"code":500}`, ServerError{"m", "504"}},
		{"error object without message", `{"error":{"code":42}}`, ServerError{`{"code":42}`, "42"}},
		{"null error falls back to message", `{"error":null,"message":"fallback"}`, ServerError{Message: "fallback"}},
		{"an error member that is not set falls back to message", `{"error":{},"message":"fallback","code":3}`, ServerError{"fallback", "3"}},
		{"false error falls back to detail", `{"error":false,"detail":"d"}`, ServerError{Message: "d"}},
		{"vLLM's old top-level error", `{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}`,
			ServerError{"m", "400"}},
		{"detail", `{"detail":"Not Found"}`, ServerError{Message: "Not Found"}},
		{"detail list", `{"detail":[{"loc":["body"],"msg":"field required"}]}`, ServerError{Message: `[{"loc":["body"],"msg":"field required"}]`}},
		{"JSON without a message", `{"ok":true}`, ServerError{Message: `{"ok":true}`}},
		{"a code of another type is no code", `{"message":"m","code":{"a":1}}`, ServerError{Message: "m"}},
		{"JSON string", `"overloaded"`, ServerError{Message: "overloaded"}},
		{"other JSON", `[1,2]`, ServerError{Message: "[1,2]"}},
		{"text", "  upstream connect error\n", ServerError{Message: "upstream connect error"}},
		{"text starting with a brace", "{not json", ServerError{Message: "{not json"}},
		{"empty", "", ServerError{}},
		{"null", "null", ServerError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseServerError([]byte(tt.body)); got != tt.want {
				t.Fatalf("ParseServerError = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestTruthy: a JSON value is set unless a client's `if error:` would pass
// over it.
func TestTruthy(t *testing.T) {
	for _, v := range []string{"", " ", "null", "false", "0", "-0", "0.0", "0e5", "-0.0E-3", "1e-400", `""`, "[]", "[ \n]", "{}", "{ }"} {
		if Truthy([]byte(v)) {
			t.Errorf("Truthy(%q) = true, want false", v)
		}
	}
	for _, v := range []string{"true", "1", "-1", "0.5", "1e400", `"0"`, `"false"`, `" "`, "[0]", "[null]", `{"a":null}`, `{"message":"m"}`} {
		if !Truthy([]byte(v)) {
			t.Errorf("Truthy(%q) = false, want true", v)
		}
	}
}
