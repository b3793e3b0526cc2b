package config

import "strings"

// The rule for credential headers, which belong in Auth, never in
// Target.Headers. A header name is split into words at '-', '_' and '.',
// in any case; the name is a credential header when one of its words
// contains one of credentialParts, or ends in "key". So Authorization,
// Proxy-Authorization, X-Auth-Token, X-Amz-Security-Token, X-Client-Secret,
// X-Password, Cookie, X-Request-Signature, X-Api-Key, api-key, apikey, X-Goog-Api-Key and
// Ocp-Apim-Subscription-Key all are; OpenAI-Organization, OpenAI-Project,
// X-Request-Id and HTTP-Referer are not. A credential whose header name
// says nothing of the kind (X-Team, say) cannot be recognized: put it in
// auth.header all the same.
var credentialParts = []string{"auth", "token", "secret", "passw", "credential", "cookie", "signature"}

// credentialKeySuffix marks a word that names a key: key, apikey.
const credentialKeySuffix = "key"

// CredentialHeader reports whether the header name looks like a
// credential's (see credentialParts) and, when it does, the part of the
// name that says so.
func CredentialHeader(name string) (part string, ok bool) {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	for _, w := range words {
		for _, p := range credentialParts {
			if strings.Contains(w, p) {
				return p, true
			}
		}
		if strings.HasSuffix(w, credentialKeySuffix) {
			return credentialKeySuffix, true
		}
	}
	return "", false
}
