package exporter

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe/localfile"
)

// Bounds of what an OTLP receiver's answer to an export can make
// llmprober read and keep.
const (
	// MaxOTLPResponseBytes bounds the body of an OTLP/HTTP answer (an error
	// text, a partial success) and the message of an OTLP/gRPC answer, in
	// bytes; a longer one fails the export (read no further than one byte
	// beyond the bound).
	MaxOTLPResponseBytes = 64 << 10
	// MaxOTLPResponseHeaderBytes bounds the header lines (status line
	// included) of an OTLP/HTTP answer and the header list of an OTLP/gRPC
	// answer, in bytes.
	MaxOTLPResponseHeaderBytes = 64 << 10
)

// otlpTLSVariables are the OTLP exporter's TLS variables, each with its
// metrics-specific form first (which wins when both are set).
var otlpTLSVariables = struct{ ca, cert, key [2]string }{
	ca:   [2]string{"OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE"},
	cert: [2]string{"OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"},
	key:  [2]string{"OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY", "OTEL_EXPORTER_OTLP_CLIENT_KEY"},
}

// otlpHTTPClient returns the HTTP client of the OTLP/HTTP exporter: the
// exporter's own transport settings, answer headers of at most
// MaxOTLPResponseHeaderBytes, its timeout and TLS files read from
// the standard variables, and no redirect followed (a 3xx answer is an
// export error), so that the OTLP headers never reach another origin or go
// out over a downgraded scheme. Errors name the variable of a file that
// cannot be read or parsed, never its contents.
func otlpHTTPClient(getenv func(string) string) (*http.Client, error) {
	tlsCfg, err := otlpTLSConfig(getenv)
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		TLSClientConfig:        tlsCfg,
		MaxResponseHeaderBytes: MaxOTLPResponseHeaderBytes,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       FlushTimeout(getenv),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, nil
}

// otlpTLSConfig returns the TLS configuration the variables ask for, or
// nil when they set none.
func otlpTLSConfig(getenv func(string) string) (*tls.Config, error) {
	v := otlpTLSVariables
	caName, caFile := firstSet(getenv, v.ca)
	certName, certFile := firstSet(getenv, v.cert)
	keyName, keyFile := firstSet(getenv, v.key)
	if caFile == "" && certFile == "" && keyFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := localfile.ReadFile(caFile, localfile.TLS)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read the CA file: %w", caName, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate in the CA file", caName)
		}
	}
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("%s and %s must be set together", v.cert[1], v.key[1])
	}
	if certFile != "" {
		pair, err := loadKeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: cannot load the client certificate: %w", certName, keyName, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// loadKeyPair loads a client certificate and its key, each a regular file
// of at most localfile.TLS.MaxBytes (1 MiB), read without waiting on a
// named pipe.
func loadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := localfile.ReadFile(certFile, localfile.TLS)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := localfile.ReadFile(keyFile, localfile.TLS)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// firstSet returns the first of names that getenv sets (trimmed), and its
// value.
func firstSet(getenv func(string) string, names [2]string) (string, string) {
	for _, name := range names {
		if value := strings.TrimSpace(getenv(name)); value != "" {
			return name, value
		}
	}
	return names[1], ""
}
