package exporter

import (
	"context"
	"fmt"
	"runtime"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// InstrumentBuildInfo is 1, carrying the build and the replica identity as
// attributes: llmprober_build_info. It is an OpenTelemetry gauge, so that
// it reaches Prometheus through OTLP and a collector as well as by scrape.
const InstrumentBuildInfo = "llmprober.build_info"

// specBuildInfo describes llmprober_build_info.
var specBuildInfo = spec{Name: InstrumentBuildInfo,
	Description: "Build information and replica identity (service_name, service_instance_id) of the running llmprober; always 1."}

// buildInfo returns the attributes of llmprober_build_info.
func buildInfo(opts Options, id Identity) attribute.Set {
	return attribute.NewSet(
		attribute.String("version", opts.Version), attribute.String("revision", opts.Revision),
		attribute.String("goversion", runtime.Version()),
		attribute.String("service_name", id.ServiceName), attribute.String("service_instance_id", id.InstanceID),
	)
}

// registerBuildInfo creates llmprober_build_info on meter, reporting 1
// with attrs at every collection.
func registerBuildInfo(meter metric.Meter, attrs attribute.Set) error {
	g, err := meter.Int64ObservableGauge(specBuildInfo.Name, metric.WithDescription(specBuildInfo.Description))
	if err != nil {
		return fmt.Errorf("could not create instrument %s: %w", specBuildInfo.Name, err)
	}
	opt := metric.WithAttributeSet(attrs)
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(g, 1, opt)
		return nil
	}, g)
	if err != nil {
		return fmt.Errorf("could not register build info callback: %w", err)
	}
	return nil
}
