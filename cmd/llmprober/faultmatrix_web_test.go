package main

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// silentListener accepts connections on loopback and never answers; it
// returns the address.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

// fullBacklogListener returns a loopback address whose listener never
// accepts and whose accept queue is full: a new connection's handshake
// never completes.
func fullBacklogListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	for range 8 { // a backlog of 0 queues one connection
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return addr
		}
		t.Cleanup(func() { _ = c.Close() })
	}
	t.Fatal("the accept queue never filled")
	return ""
}

// TestFaultMatrixHungOTLPReceiver: an OTLP receiver that accepts and never
// answers, or never accepts, over http/protobuf or grpc, with an export
// timeout of 6 s: the first probe reaches the server and /-/ready turns
// 200 within 4 s of the start (waiting for the start export would take
// 6 s), and the process stops within the flush bound (6 s) and the HTTP
// server's 5 s.
func TestFaultMatrixHungOTLPReceiver(t *testing.T) {
	for _, tc := range []struct {
		name, protocol string
		addr           func(*testing.T) string
	}{
		{"http, accepts and never answers", "http/protobuf", silentListener},
		{"http, never accepts", "http/protobuf", fullBacklogListener},
		{"grpc, accepts and never answers", "grpc", silentListener},
		{"grpc, never accepts", "grpc", fullBacklogListener},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t)
			env := map[string]string{
				"OTEL_METRICS_EXPORTER":               "otlp",
				"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": tc.protocol,
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + tc.addr(t) + "/v1/metrics",
				"OTEL_EXPORTER_OTLP_TIMEOUT":          "6000",
			}
			for k, v := range env { // the OTLP exporter reads the process's environment
				t.Setenv(k, v)
			}
			cfg := "targets:\n  - {name: one, base_url: \"" + s.URL() + "/v1\", model: sim-model, schedule: {rate: 20}}\n"
			r := startRun(t, []string{"run", "--config", writeFile(t, "one.yml", cfg), "--listen-address", "127.0.0.1:0"}, env)
			eventually(t, 4*time.Second, "the first probe and /-/ready 200", func() bool {
				code, _ := r.get(t, "/-/ready")
				return len(s.Requests()) > 0 && code == http.StatusOK
			})
			start := time.Now()
			_ = r.stop()
			if took := time.Since(start); took > 6*time.Second+5*time.Second+2*time.Second {
				t.Errorf("stopping took %v, want at most the flush bound and the server's", took)
			}
		})
	}
}
