package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseServerError checks every shape of error report servers send:
// OpenAI, vLLM (nested and old top-level), llama.cpp's error field, TGI,
// FastAPI, realtime error events, plain text.
func TestParseServerError(t *testing.T) {
	tests := []struct {
		name, body string
		want       ServerError
	}{
		{"OpenAI error object", `{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}}`,
			ServerError{"bad", str("context_length_exceeded")}},
		{"numeric code", `{"error":{"message":"bad","type":"x","code":400}}`, ServerError{"bad", num("400")}},
		{"llama.cpp error field", `{"code":500,"message":"the request exceeds the available context size","type":"server_error"}`,
			ServerError{"the request exceeds the available context size", num("500")}},
		{"error string", `{"error":"bad"}`, ServerError{Message: "bad"}},
		{"TGI error string with type", `{"error":"Input validation error","error_type":"validation"}`, ServerError{Message: "Input validation error"}},
		{"vLLM realtime: code beside the error string", `{"type":"error","error":"bad audio","code":"invalid_audio"}`,
			ServerError{"bad audio", str("invalid_audio")}},
		{"the error's own code wins", `{"error":{"message":"m","code":504},"code":500}`, ServerError{"m", num("504")}},
		{"error object without message", `{"error":{"code":42}}`, ServerError{`{"code":42}`, num("42")}},
		{"null error falls back to message", `{"error":null,"message":"fallback"}`, ServerError{Message: "fallback"}},
		{"an error member that is not set falls back to message", `{"error":{},"message":"fallback","code":3}`, ServerError{"fallback", num("3")}},
		{"false error falls back to detail", `{"error":false,"detail":"d"}`, ServerError{Message: "d"}},
		{"vLLM's old top-level error", `{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}`,
			ServerError{"m", num("400")}},
		{"detail", `{"detail":"Not Found"}`, ServerError{Message: "Not Found"}},
		{"detail list", `{"detail":[{"loc":["body"],"msg":"field required"}]}`, ServerError{Message: `[{"loc":["body"],"msg":"field required"}]`}},
		{"JSON without a message", `{"ok":true}`, ServerError{Message: `{"ok":true}`}},
		{"a code of another type is its JSON text", `{"message":"m","code":{"b":"x\u0074","a":1}}`, ServerError{"m", ErrorCode{`{"a":1,"b":"xt"}`, CodeOther}}},
		{"a code of true", `{"message":"m","code":true}`, ServerError{"m", ErrorCode{"true", CodeOther}}},
		{"the code 400 and the code \"400\" differ", `{"message":"m","code":"400"}`, ServerError{"m", str("400")}},
		{"a number as written", `{"message":"m","code":1.5e3}`, ServerError{"m", num("1.5e3")}},
		{"an empty string is no code", `{"message":"m","code":""}`, ServerError{Message: "m"}},
		{"a message that is an object, unescaped", `{"message":{"k":"sk-\u0074est"}}`, ServerError{Message: `{"k":"sk-test"}`}},
		{"text starting with a number", "503 Service Unavailable", ServerError{Message: "503 Service Unavailable"}},
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

// num and str are error codes of a number and a string.
func num(s string) ErrorCode { return ErrorCode{Text: s, Kind: CodeNumber} }
func str(s string) ErrorCode { return ErrorCode{Text: s, Kind: CodeString} }

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

// TestErrorCodeShown: the API writes a number as a JSON number, a string
// as a string, another value as a string of its JSON text, no code as
// null; the landing page and the log show a string in quotes.
func TestErrorCodeShown(t *testing.T) {
	tests := []struct {
		code       ErrorCode
		api, shown string
	}{
		{num("400"), `400`, `400`},
		{str("400"), `"400"`, `"400"`},
		{str(`a"b<c>`), `"a\"b\u003cc\u003e"`, `"a\"b<c>"`}, // json.Marshal escapes HTML
		{num("1.5e3"), `1.5e3`, `1.5e3`},
		{ErrorCode{"true", CodeOther}, `"true"`, `true`},
		{ErrorCode{`{"x":1}`, CodeOther}, `"{\"x\":1}"`, `{"x":1}`},
		{ErrorCode{}, `null`, ``},
	}
	for _, tt := range tests {
		api, err := json.Marshal(tt.code)
		if err != nil || string(api) != tt.api || tt.code.String() != tt.shown {
			t.Errorf("%+v: API %s (%v), shown %s; want %s, %s", tt.code, api, err, tt.code.String(), tt.api, tt.shown)
		}
	}
}

// TestBoundCode: a code is redacted and cut to MaxErrorCodeChars like an
// error text; a number cut short is no longer a number.
func TestBoundCode(t *testing.T) {
	r := NewRedactor([]string{"sk-secret"})
	long := strings.Repeat("9", 100)
	for _, tt := range []struct{ in, want ErrorCode }{
		{str("bad sk-secret"), str("bad REDACTED")},
		{ErrorCode{`{"k":"sk-secret"}`, CodeOther}, ErrorCode{`{"k":"REDACTED"}`, CodeOther}},
		{num(long), ErrorCode{long[:MaxErrorCodeChars-1] + "…", CodeOther}},
		{num("400"), num("400")},
	} {
		if got := r.BoundCode(tt.in); got != tt.want {
			t.Errorf("BoundCode(%+v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
