package wiring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe"
)

// maxRedirects bounds the redirects a readiness check follows when
// readiness.follow_redirects allows them.
const maxRedirects = 10

// maxReadinessBody bounds what is read (and discarded) of a readiness answer.
const maxReadinessBody = 1 << 20

// newGate returns the target's readiness gate, or nil when disabled;
// failed checks are passed to onFail. Failures, whose text comes partly
// from the server (a reason phrase, say), are redacted of secrets and
// bounded like a request's error text (probe.Redactor.Bound).
func newGate(t *config.Target, client *http.Client, header http.Header, secrets []string, onFail func(error)) *probe.Gate {
	if t.Readiness.Path == "none" {
		return nil
	}
	gateClient := *client
	gateClient.CheckRedirect = redirectPolicy(t.Readiness.FollowRedirects, t.Auth.Header)
	c := &readinessCheck{
		client: &gateClient, url: readinessURL(t.BaseURL, t.Readiness.Path), header: header,
		timeout: t.Readiness.Timeout, redact: probe.NewRedactor(secrets),
	}
	return &probe.Gate{
		Interval:       t.Readiness.Interval,
		StartupTimeout: t.Readiness.StartupTimeout,
		Check: func(ctx context.Context) error {
			err := c.run(ctx)
			if err != nil {
				onFail(err)
			}
			return err
		},
	}
}

// readinessCheck is one target's readiness check.
type readinessCheck struct {
	client  *http.Client
	url     string
	header  http.Header
	timeout time.Duration
	redact  probe.Redactor
}

// run answers nil when GET c.url returns a 2xx status within c.timeout,
// else an error whose text is redacted and bounded.
func (c *readinessCheck) run(ctx context.Context) error {
	if err := c.get(ctx); err != nil {
		return errors.New(c.redact.Bound(err.Error()))
	}
	return nil
}

// get performs the check.
func (c *readinessCheck) get(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return fmt.Errorf("could not build readiness request: %w", err)
	}
	req.Header = c.header.Clone()
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("could not check readiness: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxReadinessBody))
	_ = resp.Body.Close()
	switch resp.StatusCode / 100 {
	case 2:
		return nil
	case 3:
		return fmt.Errorf("readiness check answered HTTP %s, a redirect, which is not followed (readiness.follow_redirects is false)", resp.Status)
	}
	return fmt.Errorf("readiness check answered HTTP %s", resp.Status)
}

// readinessURL resolves path: absolute paths against the base URL's origin,
// relative ones below the base URL.
func readinessURL(base, path string) string {
	if strings.HasPrefix(path, "/") {
		u, err := url.Parse(base)
		if err != nil {
			return base + path
		}
		u.Path, u.RawQuery = path, ""
		return u.String()
	}
	return strings.TrimSuffix(base, "/") + "/" + path
}

// redirectPolicy is the CheckRedirect of a client of the prober. With
// follow false no redirect is followed: the client returns the 3xx answer
// itself. With follow true up to maxRedirects are, and a request that
// leaves the origin of the first (another scheme, host or port: another
// server, or https to http) is sent without any credential header: the
// authHeader (auth.header), Authorization, Proxy-Authorization, Cookie and
// any header whose name looks like a credential's (config.CredentialHeader).
func redirectPolicy(follow bool, authHeader string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !follow {
			return http.ErrUseLastResponse
		}
		if len(via) > maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if origin(req.URL) != origin(via[0].URL) {
			stripCredentials(req.Header, authHeader)
			// net/http sets Referer to the previous URL, whose path
			// (a deployment's, a tenant's) is not the other origin's
			// business.
			req.Header.Del("Referer")
		}
		return nil
	}
}

// stripCredentials removes every credential header from h.
func stripCredentials(h http.Header, authHeader string) {
	for name := range h {
		_, credential := config.CredentialHeader(name)
		if credential || (authHeader != "" && strings.EqualFold(name, authHeader)) {
			h.Del(name)
		}
	}
}

// origin returns u's scheme, host and port, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
