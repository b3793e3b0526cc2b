package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/localfile"
)

const testKey = "sk-test-0123456789"

func TestAPIKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keyFile := write("key", "  "+testKey+"\n")
	emptyFile := write("empty", " \n\t")
	bigFile := write("big", strings.Repeat("k", int(localfile.APIKey.MaxBytes)+1))
	t.Setenv("LLMPROBER_TEST_KEY", testKey+"\n")
	t.Setenv("LLMPROBER_TEST_EMPTY", "")
	twoLines := write("two-lines", testKey+"\nsecond-line\n")
	t.Setenv("LLMPROBER_TEST_CONTROL", testKey+"\x1b[0m")
	tests := []struct {
		name    string
		auth    Auth
		want    string
		wantErr string
	}{
		{"none", Auth{}, "", ""},
		{"env, trimmed", Auth{APIKeyEnv: "LLMPROBER_TEST_KEY"}, testKey, ""},
		{"env unset", Auth{APIKeyEnv: "LLMPROBER_TEST_UNSET"}, "", "could not read API key: environment variable LLMPROBER_TEST_UNSET is not set"},
		{"env empty", Auth{APIKeyEnv: "LLMPROBER_TEST_EMPTY"}, "", "could not read API key: environment variable LLMPROBER_TEST_EMPTY is empty"},
		{"file, trimmed", Auth{APIKeyFile: keyFile}, testKey, ""},
		{"file missing", Auth{APIKeyFile: filepath.Join(dir, "absent")}, "", "could not read API key: could not open API key file: no such file or directory"},
		{"file empty", Auth{APIKeyFile: emptyFile}, "", "could not read API key: the API key file is empty"},
		{"file of two lines", Auth{APIKeyFile: twoLines}, "", "could not read API key: the API key file holds a line break or another control character inside the key, which no HTTP header can carry"},
		{"env with a control character", Auth{APIKeyEnv: "LLMPROBER_TEST_CONTROL"}, "", "could not read API key: environment variable LLMPROBER_TEST_CONTROL holds a line break or another control character inside the key, which no HTTP header can carry"},
		{"file too big", Auth{APIKeyFile: bigFile}, "", "could not read API key: API key file is too large: larger than 64 KiB, the limit for API key files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := Target{Auth: tt.auth}
			got, err := target.APIKey()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("APIKey = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// pki is a test certificate authority with a server and a client
// certificate, written as PEM files.
type pki struct {
	caFile, serverCert, serverKey, clientCert, clientKey string
	ca                                                   *x509.Certificate
}

// newPKI creates the authority and certificates under dir.
func newPKI(t *testing.T, dir string) pki {
	t.Helper()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "llmprober test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	p := pki{ca: ca, caFile: writePEM(t, dir, "ca.pem", "CERTIFICATE", caDER)}
	p.serverCert, p.serverKey = leaf(t, dir, "server", ca, caKey, x509.ExtKeyUsageServerAuth)
	p.clientCert, p.clientKey = leaf(t, dir, "client", ca, caKey, x509.ExtKeyUsageClientAuth)
	return p
}

// newKey returns a fresh P-256 key.
func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// leaf issues a certificate for 127.0.0.1 and "vllm.test" signed by ca, and
// returns its certificate and key files.
func leaf(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, usage x509.ExtKeyUsage) (string, string) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"vllm.test"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, dir, name+".pem", "CERTIFICATE", der), writePEM(t, dir, name+"-key.pem", "PRIVATE KEY", keyDER)
}

// writePEM writes one PEM block to dir/name and returns the path.
func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTLSConfigFields(t *testing.T) {
	p := newPKI(t, t.TempDir())
	target := Target{TLS: TLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: p.clientKey, ServerName: "vllm.test"}}
	cfg, err := target.TLSConfig()
	if err != nil {
		t.Fatalf("TLSConfig: %v", err)
	}
	if cfg.ServerName != "vllm.test" || cfg.InsecureSkipVerify || cfg.MinVersion != tls.VersionTLS12 || len(cfg.Certificates) != 1 {
		t.Errorf("TLSConfig = server name %q, insecure %v, min version %x, %d certificates",
			cfg.ServerName, cfg.InsecureSkipVerify, cfg.MinVersion, len(cfg.Certificates))
	}
	// The CA is trusted: a certificate it issued verifies against RootCAs.
	serverPair, err := tls.LoadX509KeyPair(p.serverCert, p.serverKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := serverPair.Leaf.Verify(x509.VerifyOptions{Roots: cfg.RootCAs, DNSName: "vllm.test"}); err != nil {
		t.Errorf("server certificate does not verify against RootCAs: %v", err)
	}

	plain, err := (&Target{TLS: TLS{InsecureSkipVerify: true}}).TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	// No CA file: RootCAs nil means the system roots.
	if !plain.InsecureSkipVerify || plain.RootCAs != nil || len(plain.Certificates) != 0 {
		t.Errorf("plain TLSConfig = insecure %v, roots %v, %d certificates", plain.InsecureSkipVerify, plain.RootCAs, len(plain.Certificates))
	}
}

func TestTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	p := newPKI(t, dir)
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tls  TLS
		want string
	}{
		{"ca missing", TLS{CAFile: filepath.Join(dir, "absent.pem")}, "could not read CA file: could not open TLS file: no such file or directory"},
		{"ca not PEM", TLS{CAFile: notPEM}, "could not load CA file: no PEM certificate found"},
		{"key of another certificate", TLS{CertFile: p.clientCert, KeyFile: p.serverKey}, "could not load client certificate: tls: private key does not match public key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := (&Target{TLS: tt.tls}).TLSConfig()
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %s", err, tt.want)
			}
			if tt.name == "ca not PEM" && !errors.Is(err, errNoCertificates) {
				t.Errorf("error %v does not wrap errNoCertificates", err)
			}
		})
	}
}

func TestTLSConfigHandshake(t *testing.T) {
	p := newPKI(t, t.TempDir())
	serverPair, err := tls.LoadX509KeyPair(p.serverCert, p.serverKey)
	if err != nil {
		t.Fatal(err)
	}
	clientCAs := x509.NewCertPool()
	clientCAs.AddCert(p.ca)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.TLS.PeerCertificates[0].Subject.CommonName))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serverPair}, ClientCAs: clientCAs, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	defer srv.Close()

	tests := []struct {
		name    string
		tls     TLS
		wantErr string
	}{
		{"trusted CA and client certificate", TLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: p.clientKey}, ""},
		{"server name override", TLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: p.clientKey, ServerName: "vllm.test"}, ""},
		{"wrong server name", TLS{CAFile: p.caFile, CertFile: p.clientCert, KeyFile: p.clientKey, ServerName: "other.test"}, "certificate is valid for vllm.test, not other.test"},
		{"system roots only", TLS{CertFile: p.clientCert, KeyFile: p.clientKey}, "certificate signed by unknown authority"},
		{"insecure skip verify", TLS{CertFile: p.clientCert, KeyFile: p.clientKey, InsecureSkipVerify: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := (&Target{TLS: tt.tls}).TLSConfig()
			if err != nil {
				t.Fatal(err)
			}
			transport := &http.Transport{TLSClientConfig: cfg}
			defer transport.CloseIdleConnections()
			resp, err := (&http.Client{Transport: transport}).Get(srv.URL)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			defer func() { _ = resp.Body.Close() }()
			buf := make([]byte, 64)
			n, _ := resp.Body.Read(buf)
			// The server saw our client certificate.
			if got := string(buf[:n]); got != "client" {
				t.Errorf("server saw client %q, want client", got)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	p := newPKI(t, dir)
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte(testKey), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LLMPROBER_CHECK_KEY", testKey)
	data := `targets:
  - name: good
    base_url: https://127.0.0.1:1/v1
    model: m
    auth: {api_key_file: ` + keyFile + `}
    tls: {ca_file: ` + p.caFile + `, cert_file: ` + p.clientCert + `, key_file: ` + p.clientKey + `}
  - name: good-env
    base_url: https://127.0.0.1:1/v1
    model: m
    auth: {api_key_env: LLMPROBER_CHECK_KEY}
  - name: bad
    base_url: https://127.0.0.1:1/v1
    model: m
    auth:
      api_key_env: LLMPROBER_CHECK_UNSET
    tls:
      ca_file: ` + p.clientKey + `
      cert_file: ` + p.clientCert + `
      key_file: ` + p.serverKey + `
  - name: bad-file
    base_url: https://127.0.0.1:1/v1
    model: m
    auth:
      api_key_file: ` + filepath.Join(dir, "absent") + `
`
	c, err := Parse([]byte(data), "c.yml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	err = c.Check()
	want := strings.Join([]string{
		"c.yml:15: targets[2].auth.api_key_env: could not read API key: environment variable LLMPROBER_CHECK_UNSET is not set",
		"c.yml:17: targets[2].tls.ca_file: could not load CA file: no PEM certificate found",
		"c.yml:18: targets[2].tls.cert_file: could not load client certificate: tls: private key does not match public key",
		"c.yml:24: targets[3].auth.api_key_file: could not read API key: could not open API key file: no such file or directory",
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("Check =\n%v\nwant\n%s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Errorf("Check error quotes the key")
	}
}

// TestCredentialFilesRelative checks that relative API key and TLS file
// names are taken relative to the configuration file's directory (the
// test's working directory is the package's, where none of them is), and
// absolute ones are kept.
func TestCredentialFilesRelative(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yml")
	yml := "targets:\n  - name: a\n    base_url: https://127.0.0.1:8443/v1\n    model: m\n" +
		"    auth: {api_key_file: keys/k}\n    tls: {ca_file: ca.pem, cert_file: /etc/c.pem, key_file: ./c.key}\n"
	if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tg := c.Targets[0]
	got := []string{tg.Auth.APIKeyFile, tg.TLS.CAFile, tg.TLS.CertFile, tg.TLS.KeyFile}
	want := []string{filepath.Join(dir, "keys", "k"), filepath.Join(dir, "ca.pem"), "/etc/c.pem", filepath.Join(dir, "c.key")}
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
}
