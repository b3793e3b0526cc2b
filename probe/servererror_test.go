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
