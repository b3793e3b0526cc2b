#!/usr/bin/env bash
# Builds (once) an OpenTelemetry Collector with the OTLP receiver, the debug exporter and the
# Prometheus exporter, with the OpenTelemetry Collector Builder. The binary is cached under
# $OTELCOL_CACHE (default /var/cache/llmprober/otelcol) and rebuilt only when missing or when
# the manifest below changes. Prints the binary's path on success.
#
# usage: .ci/otelcol/ensure.sh build   # build if missing, print the path
#        .ci/otelcol/ensure.sh path    # print the path if built, fail otherwise
set -euo pipefail

cache=${OTELCOL_CACHE:-/var/cache/llmprober/otelcol}
builder_version=v0.165.0

manifest() {
  cat <<MANIFEST
dist:
  name: otelcol-llmprober
  description: OpenTelemetry Collector for llmprober's integration tests
  output_path: $1
receivers:
  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver v0.165.0
exporters:
  - gomod: go.opentelemetry.io/collector/exporter/debugexporter v0.165.0
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter v0.165.1
providers:
  - gomod: go.opentelemetry.io/collector/confmap/provider/envprovider v1.71.0
  - gomod: go.opentelemetry.io/collector/confmap/provider/fileprovider v1.71.0
  - gomod: go.opentelemetry.io/collector/confmap/provider/yamlprovider v1.71.0
MANIFEST
}

# The cache key is the manifest itself, so a version change rebuilds.
key=$(manifest X | sha256sum | cut -c1-16)
bin=$cache/$key/otelcol-llmprober

build() {
  if [ -x "$bin" ]; then
    echo "$bin"
    return 0
  fi
  export PATH="$PATH:/usr/local/go/bin:$(go env GOPATH)/bin"
  local work=$cache/$key/src
  mkdir -p "$work"
  GOBIN=$cache/bin go install "go.opentelemetry.io/collector/cmd/builder@$builder_version" >&2
  manifest "$work/dist" >"$work/manifest.yaml"
  # The builder runs go build itself; -p 2 keeps it polite on a shared 2-core machine.
  GOFLAGS="${GOFLAGS:-} -p=2" "$cache/bin/builder" --config="$work/manifest.yaml" >"$work/build.log" 2>&1 ||
    { tail -50 "$work/build.log" >&2; exit 1; }
  cp "$work/dist/otelcol-llmprober" "$bin.tmp" && mv "$bin.tmp" "$bin"
  rm -rf "$work"
  echo "$bin"
}

case "${1:-}" in
  build) build ;;
  path) [ -x "$bin" ] && echo "$bin" ;;
  *) echo "usage: $0 build | path" >&2; exit 2 ;;
esac
