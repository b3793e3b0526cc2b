package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/llmprober/llmprober/probe/localfile"
)

// APIKey returns the target's API key: the value of the environment variable
// named by Auth.APIKeyEnv, or the contents of Auth.APIKeyFile, with
// surrounding white space trimmed. It returns "" and no error when the
// target has no key configured. Errors name the variable or file, never the
// value.
func (t *Target) APIKey() (string, error) {
	switch {
	case t.Auth.APIKeyEnv != "":
		return keyFromEnv(t.Auth.APIKeyEnv)
	case t.Auth.APIKeyFile != "":
		return keyFromFile(t.Auth.APIKeyFile)
	}
	return "", nil
}

// keyFromEnv reads a key from the environment variable name.
func keyFromEnv(name string) (string, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", fmt.Errorf("could not read API key: environment variable %s is not set", name)
	}
	if v = strings.TrimSpace(v); v == "" {
		return "", fmt.Errorf("could not read API key: environment variable %s is empty", name)
	}
	if !httpguts.ValidHeaderFieldValue(v) {
		return "", fmt.Errorf("could not read API key: environment variable %s %s", name, errKeyNotHeader)
	}
	return v, nil
}

// errKeyNotHeader ends the message about a key that no HTTP header can
// carry (net/http would refuse every request, each an error charged to
// the target).
const errKeyNotHeader = "holds a line break or another control character inside the key, which no HTTP header can carry"

// keyFromFile reads a key from the file at path: a regular file of at
// most localfile.APIKey.MaxBytes. Errors name neither the file nor the key.
func keyFromFile(path string) (string, error) {
	data, err := localfile.ReadFile(path, localfile.APIKey)
	if err != nil {
		return "", fmt.Errorf("could not read API key: %w", err)
	}
	key := strings.TrimSpace(string(data))
	if key == "" {
		return "", errors.New("could not read API key: the API key file is empty")
	}
	if !httpguts.ValidHeaderFieldValue(key) {
		return "", errors.New("could not read API key: the API key file " + errKeyNotHeader)
	}
	return key, nil
}

// TLSConfig returns the client TLS configuration for the target: system
// roots plus the certificates of TLS.CAFile, the client certificate when
// configured, TLS.ServerName, and InsecureSkipVerify only when set. The
// minimum version is TLS 1.2.
func (t *Target) TLSConfig() (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.TLS.ServerName,
		InsecureSkipVerify: t.TLS.InsecureSkipVerify, //nolint:gosec // only when spelled out in the configuration
	}
	if t.TLS.CAFile != "" {
		pool, err := loadCAFile(t.TLS.CAFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if t.TLS.CertFile != "" || t.TLS.KeyFile != "" {
		cert, err := loadKeyPair(t.TLS.CertFile, t.TLS.KeyFile)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// loadKeyPair loads a client certificate and its key, each a regular file
// of at most localfile.TLS.MaxBytes.
func loadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := localfile.ReadFile(certFile, localfile.TLS)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("could not load client certificate: cert_file: %w", err)
	}
	keyPEM, err := localfile.ReadFile(keyFile, localfile.TLS)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("could not load client certificate: key_file: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("could not load client certificate: %w", err)
	}
	return cert, nil
}

// errNoCertificates says a CA file held no PEM certificate.
var errNoCertificates = errors.New("no PEM certificate found")

// loadCAFile returns the system roots (or an empty pool where the system has
// none) plus the PEM certificates in path.
func loadCAFile(path string) (*x509.CertPool, error) {
	data, err := localfile.ReadFile(path, localfile.TLS)
	if err != nil {
		return nil, fmt.Errorf("could not read CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("could not load CA file: %w", errNoCertificates)
	}
	return pool, nil
}

// resolveCredentialFiles makes every relative API key and TLS file name
// relative to dir, the configuration file's directory, as trace and audio
// files are (and as Prometheus takes the files its configuration names).
func (c *Config) resolveCredentialFiles(dir string) {
	for i := range c.Targets {
		t := &c.Targets[i]
		for _, f := range []*string{&t.Auth.APIKeyFile, &t.TLS.CAFile, &t.TLS.CertFile, &t.TLS.KeyFile} {
			if *f != "" && !filepath.IsAbs(*f) {
				*f = filepath.Join(dir, *f)
			}
		}
	}
}
