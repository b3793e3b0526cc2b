package exporter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/grpc"
)

// Standard OpenTelemetry environment variables read here.
const (
	envMetricsExporter     = "OTEL_METRICS_EXPORTER"
	envOTLPMetricsProtocol = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
	envOTLPProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
)

// OTLP protocols.
const (
	protocolGRPC         = "grpc"
	protocolHTTPProtobuf = "http/protobuf"
)

// errExporterConfig marks an invalid exporter selection in the environment.
var errExporterConfig = errors.New("invalid exporter configuration")

// otlpWanted reads OTEL_METRICS_EXPORTER, a comma-separated list: "otlp"
// enables OTLP; "prometheus" is accepted and changes nothing (/metrics is
// always served); "none" or an empty value means no OTLP and cannot be
// combined with otlp; anything else is an error.
func otlpWanted(getenv func(string) string) (bool, error) {
	var otlp, none bool
	for _, v := range strings.Split(getenv(envMetricsExporter), ",") {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "":
		case "otlp":
			otlp = true
		case "none":
			none = true
		case "prometheus":
		default:
			return false, fmt.Errorf("%w: %s=%q: unknown exporter %q (want otlp, prometheus or none)",
				errExporterConfig, envMetricsExporter, getenv(envMetricsExporter), strings.TrimSpace(v))
		}
	}
	if otlp && none {
		return false, fmt.Errorf("%w: %s=%q combines none with otlp",
			errExporterConfig, envMetricsExporter, getenv(envMetricsExporter))
	}
	return otlp, nil
}

// otlpProtocol returns the metrics protocol: the metrics-specific variable,
// else the general one, else http/protobuf.
func otlpProtocol(getenv func(string) string) (string, error) {
	name := envOTLPMetricsProtocol
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		name = envOTLPProtocol
		v = strings.TrimSpace(getenv(name))
	}
	switch v {
	case "", protocolHTTPProtobuf:
		return protocolHTTPProtobuf, nil
	case protocolGRPC:
		return protocolGRPC, nil
	default:
		return "", fmt.Errorf("%w: %s=%q: unsupported OTLP protocol (want grpc or http/protobuf)",
			errExporterConfig, name, v)
	}
}

// otlpEndpointCredentials rejects an endpoint variable whose URL holds a
// user name or password (https://user:pass@collector:4318): the OTLP
// exporters send no Authorization header from it, so the receiver would
// see an anonymous request. The error names the variable, never its value.
func otlpEndpointCredentials(getenv func(string) string) error {
	for _, name := range otlpEndpointVars {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			continue
		}
		if !strings.Contains(v, "://") {
			v = "//" + v // a gRPC endpoint may be written host:port
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			return fmt.Errorf("%w: %s: the URL holds a user name or password (user:pass@), which the OTLP exporter does not send: "+
				"remove it and set OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%%20<base64 of user:pass> instead", errExporterConfig, name)
		}
	}
	return nil
}

// newOTLPReader returns a periodic reader (with opts) pushing over OTLP
// and the exporter counting its exports, telling watch of overflow series
// and leaving out the series hide retires, or nils when the environment
// does not ask for OTLP. The exporter reads its endpoint and headers, the
// reader its interval, from the standard environment variables; over
// HTTP, the client is otlpHTTPClient's (timeout and TLS from the same
// variables, no redirects); over both, an answer is read up to
// MaxOTLPResponseBytes and MaxOTLPResponseHeaderBytes, and each export
// ends within FlushTimeout.
func newOTLPReader(ctx context.Context, getenv func(string) string, watch *overflowWatch, hide *retired,
	opts ...sdkmetric.PeriodicReaderOption) (*sdkmetric.PeriodicReader, *countingExporter, error) {
	want, err := otlpWanted(getenv)
	if err != nil || !want {
		return nil, nil, err
	}
	proto, err := otlpProtocol(getenv)
	if err != nil {
		return nil, nil, err
	}
	if err := otlpEndpointCredentials(getenv); err != nil {
		return nil, nil, err
	}
	var exp sdkmetric.Exporter
	if proto == protocolGRPC {
		exp, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithDialOption(
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxOTLPResponseBytes)),
			grpc.WithMaxHeaderListSize(MaxOTLPResponseHeaderBytes)))
	} else {
		var client *http.Client
		if client, err = otlpHTTPClient(getenv); err != nil {
			return nil, nil, err
		}
		exp, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithHTTPClient(client),
			otlpmetrichttp.WithMaxResponseSize(MaxOTLPResponseBytes))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("could not create OTLP %s exporter: %w", proto, err)
	}
	counted := newCountingExporter(exp, FlushTimeout(getenv), watch, hide)
	return sdkmetric.NewPeriodicReader(counted, opts...), counted, nil
}

// ValidateEnv checks the exporter selection in the environment
// (OTEL_METRICS_EXPORTER and, when it lists otlp, the OTLP protocol
// variables and that no endpoint URL holds credentials) without creating
// anything; getenv nil means os.Getenv.
func ValidateEnv(getenv func(string) string) error {
	if getenv == nil {
		getenv = os.Getenv
	}
	otlp, err := otlpWanted(getenv)
	if err != nil || !otlp {
		return err
	}
	proto, err := otlpProtocol(getenv)
	if err != nil {
		return err
	}
	if proto != protocolGRPC {
		if _, err := otlpTLSConfig(getenv); err != nil {
			return err
		}
	}
	return otlpEndpointCredentials(getenv)
}
