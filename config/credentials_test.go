package config

import "testing"

func TestCredentialHeader(t *testing.T) {
	tests := []struct {
		name, part string
	}{
		{"Authorization", "auth"},
		{"proxy-authorization", "auth"},
		{"X-Auth-Token", "auth"},
		{"X-Amz-Security-Token", "token"},
		{"X-Access_Token", "token"},
		{"X-Client-Secret", "secret"},
		{"X-Password", "passw"},
		{"X-Credentials", "credential"},
		{"X-Request-Signature", "signature"},
		{"X-Amz-Signature", "signature"},
		{"Cookie", "cookie"},
		{"X-Api-Key", "key"},
		{"api-key", "key"},
		{"APIKEY", "key"},
		{"X-Goog-Api-Key", "key"},
		{"Ocp-Apim-Subscription-Key", "key"},
		{"x.functions.key", "key"},
		{"OpenAI-Organization", ""},
		{"OpenAI-Project", ""},
		{"X-Request-Id", ""},
		{"HTTP-Referer", ""},
		{"X-Team", ""},
		{"Keep-Alive", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			part, ok := CredentialHeader(tt.name)
			if part != tt.part || ok != (tt.part != "") {
				t.Errorf("CredentialHeader(%q) = %q, %v; want %q, %v", tt.name, part, ok, tt.part, tt.part != "")
			}
		})
	}
}
