package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxSecretFileSize bounds what is read from an API key file, in bytes.
const maxSecretFileSize = 64 << 10

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
	return v, nil
}

// keyFromFile reads a key from the file at path.
func keyFromFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("could not read API key: %w", err)
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, maxSecretFileSize+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("could not read API key: %w", err)
	case len(data) > maxSecretFileSize:
		return "", fmt.Errorf("could not read API key: file %s is larger than %d bytes", path, maxSecretFileSize)
	}
	key := strings.TrimSpace(string(data))
	if key == "" {
		return "", fmt.Errorf("could not read API key: file %s is empty", path)
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
		cert, err := tls.LoadX509KeyPair(t.TLS.CertFile, t.TLS.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("could not load client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// errNoCertificates says a CA file held no PEM certificate.
var errNoCertificates = errors.New("no PEM certificate found")

// loadCAFile returns the system roots (or an empty pool where the system has
// none) plus the PEM certificates in path.
func loadCAFile(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("could not read CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("could not load CA file %s: %w", path, errNoCertificates)
	}
	return pool, nil
}
