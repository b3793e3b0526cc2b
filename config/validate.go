package config

import (
	"fmt"
	"maps"
	"net"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/llmprober/llmprober/probe/api"
)

var (
	// namePattern is what a target name may be.
	namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	// envNamePattern is what an environment variable name may be.
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// ownedHeaders are the headers llmprober or its HTTP client set on every
// request, by canonical name, with the reason they cannot be set in
// Target.Headers. Host is not among them: it sets the request's host.
var ownedHeaders = map[string]string{
	"User-Agent":        "llmprober sets it to identify its requests",
	"X-Llmprober-Tag":   "llmprober sets it from tag; use tag",
	"Content-Type":      "llmprober sets it to the format of the request body",
	"Accept":            "llmprober sets it to the response format it reads (JSON or a stream)",
	"Content-Length":    "the HTTP client sets it to frame the request",
	"Transfer-Encoding": "the HTTP client sets it to frame the request",
	"Connection":        "the HTTP client manages connections",
}

// logLevels are the accepted values of Config.LogLevel.
var logLevels = []string{"debug", "info", "warn", "error"}

// Validate checks the whole configuration and returns every problem found as
// Errors, or nil. Problems name the field path, and the file and line when
// the configuration came from a file. Call it after ApplyDefaults.
func (c *Config) Validate() error {
	col := &collector{src: c.src}
	c.validate(col)
	return col.errs.sorted().orNil()
}

// validate records every problem in col.
func (c *Config) validate(col *collector) {
	validateListenAddress(col, c.ListenAddress)
	if !slices.Contains(logLevels, c.LogLevel) {
		col.add("log_level", "unknown log level %s (supported: %s)", quote(c.LogLevel), strings.Join(logLevels, ", "))
	}
	if len(c.Targets) == 0 {
		col.add("targets", "at least one target is required")
	}
	c.validateWindows(col)
	names := map[string]int{}
	for i := range c.Targets {
		t := &c.Targets[i]
		path := targetPath(i)
		if first, dup := names[t.Name]; dup && t.Name != "" {
			col.add(path+".name", "duplicate name %s (also targets[%d])", quote(t.Name), first)
		} else {
			names[t.Name] = i
		}
		t.validate(col, path)
	}
}

// validateListenAddress checks that addr is host:port with a numeric port.
func validateListenAddress(col *collector, addr string) {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		col.add("listen_address", "must be host:port, such as %q (got %s)", DefaultListenAddress, quote(addr))
	}
}

// validate records the target's problems; path locates it.
func (t *Target) validate(col *collector, path string) {
	switch {
	case t.Name == "":
		col.add(path+".name", "required")
	case !namePattern.MatchString(t.Name):
		col.add(path+".name", "must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.', '-'")
	}
	validateBaseURL(col, path+".base_url", t.BaseURL)
	if t.Model == "" {
		col.add(path+".model", "required")
	}
	if apis := api.Of(BackendHTTP); t.Backend != BackendWebSocket && !slices.Contains(apis, t.API) {
		col.add(path+".api", "unknown api %s (supported: %s)", quote(t.API), strings.Join(apis, ", "))
	}
	t.validateBackend(col, path)
	switch {
	case t.Timeout <= 0:
		col.add(path+".timeout", "must be > 0")
	case t.Timeout > LimitTimeout:
		col.add(path+".timeout", "must be at most %v", LimitTimeout)
	}
	validateHeaders(col, path+".headers", t.Headers)
	validateHeaderValue(col, path+".tag", t.Tag)
	t.Auth.validate(col, path+".auth")
	t.TLS.validate(col, path+".tls")
	t.Readiness.validate(col, path+".readiness")
	t.Workload.validate(col, path+".workload")
	t.Workload.validateForStrategy(col, path+".workload", t.Schedule.Strategy)
	t.Schedule.validate(col, path+".schedule")
	t.validateObjectives(col, path)
}

// validateBaseURL checks an http(s) URL with a host and no credentials,
// query or fragment. Messages never quote the URL, which may hold a secret.
func validateBaseURL(col *collector, path, raw string) {
	if raw == "" {
		col.add(path, "required")
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		col.add(path, "is not a valid URL")
	case u.User != nil:
		col.add(path, "must not contain credentials; use %s", col.keySources())
	case u.Scheme != "http" && u.Scheme != "https":
		col.add(path, "scheme must be http or https")
	case u.Host == "":
		col.add(path, "must have a host")
	case u.RawQuery != "" || u.ForceQuery:
		col.add(path, "must not have a query string")
	case u.Fragment != "":
		col.add(path, "must not have a fragment")
	}
}

// validateHeaders rejects credential headers (CredentialHeader), headers llmprober sets itself,
// and malformed names or values. Values are never quoted.
func validateHeaders(col *collector, path string, headers map[string]string) {
	names := slices.Sorted(maps.Keys(headers))
	slices.SortStableFunc(names, func(a, b string) int {
		return col.src.line(joinPath(path, a)) - col.src.line(joinPath(path, b))
	})
	for _, name := range names {
		p := joinPath(path, name)
		part, credential := CredentialHeader(name)
		switch {
		case credential:
			col.add(p, "looks like a credential header (its name has %q), and credentials are not accepted in headers: "+
				"name the header in auth.header and give the key with auth.api_key_env or auth.api_key_file", part)
		case ownedHeaders[textproto.CanonicalMIMEHeaderKey(name)] != "":
			col.add(p, "cannot be set in headers: %s", ownedHeaders[textproto.CanonicalMIMEHeaderKey(name)])
		case !httpguts.ValidHeaderFieldName(name):
			col.add(p, "invalid header name")
		default:
			validateHeaderValue(col, p, headers[name])
		}
	}
}

// validateHeaderValue rejects a header value that cannot be sent as is.
func validateHeaderValue(col *collector, path, value string) {
	if !httpguts.ValidHeaderFieldValue(value) {
		col.add(path, "must not contain line breaks or control characters")
	}
}

// validate records the auth settings' problems. Messages never quote
// api_key_env, in case the key itself was written there.
func (a *Auth) validate(col *collector, path string) {
	switch {
	case a.APIKeyEnv == "" || a.APIKeyFile == "":
	case col.src.fromEnv():
		col.add("", "LLMPROBER_API_KEY_ENV and LLMPROBER_API_KEY_FILE are mutually exclusive; unset one")
	default:
		col.add(path, "api_key_env and api_key_file are mutually exclusive")
	}
	if a.APIKeyEnv != "" && !envNamePattern.MatchString(a.APIKeyEnv) {
		col.add(path+".api_key_env", "must be the name of an environment variable (letters, digits and '_'), not the key itself")
	}
	if !httpguts.ValidHeaderFieldName(a.Header) {
		col.add(path+".header", "invalid header name")
	}
}

// validate records the TLS settings' problems.
func (t *TLS) validate(col *collector, path string) {
	if (t.CertFile == "") != (t.KeyFile == "") {
		col.add(path, "cert_file and key_file must be set together")
	}
}

// validate records the readiness gate's problems.
func (r *Readiness) validate(col *collector, path string) {
	validateReadinessPath(col, path+".path", r.Path)
	positive(col, path+".timeout", r.Timeout.Seconds())
	positive(col, path+".interval", r.Interval.Seconds())
	positive(col, path+".startup_timeout", r.StartupTimeout.Seconds())
}

// validateReadinessPath checks that p is "none", an absolute path or a path
// relative to the base URL: not a full URL, and without query or fragment.
func validateReadinessPath(col *collector, path, p string) {
	if strings.ContainsAny(p, " \t") || !httpguts.ValidHeaderFieldValue(p) {
		col.add(path, "must be a URL path without spaces or control characters")
		return
	}
	u, err := url.Parse(p)
	switch {
	case err != nil:
		col.add(path, "is not a valid URL path")
	case u.Scheme != "" || strings.HasPrefix(p, "//"):
		col.add(path, `must be %q, a path such as "/health", or a path relative to base_url such as "models"; not a full URL`, ReadinessNone)
	case strings.ContainsAny(p, "?#"):
		col.add(path, "must be a URL path without query string or fragment")
	}
}

// validate records the workload's problems.
func (w *Workload) validate(col *collector, path string) {
	w.PromptTokens.validate(col, path+".prompt_tokens")
	w.OutputTokens.validate(col, path+".output_tokens")
	fields := path + ".max_tokens_fields"
	if len(w.MaxTokensFields) == 0 {
		col.add(fields, "must list at least one of %s, %s", FieldMaxTokens, FieldMaxCompletionTokens)
	}
	seen := map[string]bool{}
	for i, f := range w.MaxTokensFields {
		p := fmt.Sprintf("%s[%d]", fields, i)
		switch {
		case f != FieldMaxTokens && f != FieldMaxCompletionTokens:
			col.add(p, "unknown field %s (supported: %s, %s)", quote(f), FieldMaxTokens, FieldMaxCompletionTokens)
		case seen[f]:
			col.add(p, "%s is listed twice", quote(f))
		}
		seen[f] = true
	}
}

// validate records the schedule's problems.
func (s *Schedule) validate(col *collector, path string) {
	s.validateStrategy(col, path)
	switch {
	case s.MaxConcurrency < 1:
		col.add(path+".max_concurrency", "must be >= 1")
	case s.MaxConcurrency > LimitConcurrency:
		col.add(path+".max_concurrency", "must be at most %d", LimitConcurrency)
	}
	switch {
	case s.MaxQueue == nil:
	case *s.MaxQueue < 0:
		col.add(path+".max_queue", "must be >= 0")
	case *s.MaxQueue > LimitQueue:
		col.add(path+".max_queue", "must be at most %d", LimitQueue)
	}
}

// positive records a problem unless v > 0.
func positive(col *collector, path string, v float64) {
	if !(v > 0) {
		col.add(path, "must be > 0")
	}
}
