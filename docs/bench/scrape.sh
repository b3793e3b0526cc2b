#!/usr/bin/env bash
# Measures what a scrape costs when the rolling windows are full: llmprober
# run probes llmprober sim (streamed, each in its own process) at RATE
# requests/s with windows 1m and 5m; after FILL seconds (5m of records, past
# the default sample cap at 400 req/s) it times SCRAPES GETs each of
# /metrics, /api/v1/targets and /api/v1/targets/sim/windows/5m, SPACING
# seconds apart so that each computes the snapshots anew, and reports
# llmprober's resident memory. Loopback only, on ephemeral ports, bounded
# by timeout. See docs/benchmarks.md.
#
# Settings (environment):
#   RATE      requests/s                                   (default 400)
#   FILL      seconds of probing before the first scrape   (default 330)
#   SCRAPES   GETs of each path                            (default 10)
#   SPACING   seconds between scrapes                      (default 3)
#   MAX_LOAD  if set, wait (at most 10 min) before the scrapes until the
#             1-minute load average is below it
#   OUT       where the binary, configuration and results go (default: a new temp dir)
set -euo pipefail

RATE=${RATE:-400}
FILL=${FILL:-330}
SCRAPES=${SCRAPES:-10}
SPACING=${SPACING:-3}
MAX_LOAD=${MAX_LOAD:-}
OUT=${OUT:-$(mktemp -d -t llmprober-scrape.XXXXXX)}

cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
log() { echo "[$(date +%T)] $*" >&2; }

# address FILE PREFIX: waits (at most 10 s) for a line of FILE with PREFIX
# followed by host:port, and prints host:port.
address() {
	local a
	for _ in $(seq 100); do
		a=$(grep -o "$2[0-9.:]*" "$1" 2>/dev/null | sed -n "1s|^$2||p" || true)
		if [[ -n $a ]]; then
			echo "$a"
			return
		fi
		sleep 0.1
	done
	echo "no address in $1" >&2
	return 1
}

log "building llmprober into $OUT"
go build -o "$OUT/llmprober" ./cmd/llmprober
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT
timeout $((FILL + 900)) "$OUT/llmprober" sim --listen-address 127.0.0.1:0 --ttft 20ms --itl 1ms \
	>"$OUT/sim.log" 2>&1 &
pids+=($!)
sim=$(address "$OUT/sim.log" "endpoint: http://")
cat >"$OUT/llmprober.yml" <<CONFIG
listen_address: 127.0.0.1:0
windows: [1m, 5m]
targets:
  - name: sim
    base_url: http://$sim/v1
    model: sim-model
    workload: {prompt_tokens: 32, output_tokens: 64}
    schedule: {rate: $RATE, max_concurrency: 512, max_queue: 512}
CONFIG
timeout $((FILL + 900)) "$OUT/llmprober" run --config "$OUT/llmprober.yml" >"$OUT/llmprober.log" 2>&1 &
pids+=($!)
api=http://$(address "$OUT/llmprober.log" "listening on ")
prober=$(pgrep -P "${pids[1]}") # under timeout

log "probing $sim at $RATE req/s for ${FILL}s"
sleep "$FILL"
if [[ -n $MAX_LOAD ]]; then
	for _ in $(seq 120); do
		awk -v max="$MAX_LOAD" '{ exit !($1 < max) }' /proc/loadavg && break
		sleep 5
	done
fi
window=$(curl -fsS "$api/api/v1/targets/sim/windows/5m" | tr -d ' \n')
first() { grep -o "$1" | sed -n 1p; }
requests=$(first '"requests":{[^}]*}' <<<"$window" | first '"all":[0-9]*' | cut -d: -f2)
approximate=$(first '"approximate":[a-z]*' <<<"$window" | cut -d: -f2)
log "requests in 5m: $requests, approximate: $approximate"

echo "| path | scrapes | time min / median / max ms | bytes |"
echo "|---|---|---|---|"
for path in /metrics /api/v1/targets /api/v1/targets/sim/windows/5m; do
	times=()
	for _ in $(seq "$SCRAPES"); do
		sleep "$SPACING"
		times+=("$(curl -fsS -o "$OUT/body" -w '%{time_total}' "$api$path")")
	done
	sorted=$(printf '%s\n' "${times[@]}" | sort -g)
	min=$(head -1 <<<"$sorted")
	max=$(tail -1 <<<"$sorted")
	med=$(sed -n "$(((SCRAPES + 1) / 2))p" <<<"$sorted")
	printf '| %s | %d | %.1f / %.1f / %.1f | %d |\n' "$path" "$SCRAPES" \
		"$(bc -l <<<"$min*1000")" "$(bc -l <<<"$med*1000")" "$(bc -l <<<"$max*1000")" "$(stat -c %s "$OUT/body")"
done
rss=$(awk '/VmRSS/{print $2}' "/proc/$prober/status")
hwm=$(awk '/VmHWM/{print $2}' "/proc/$prober/status")
echo
echo "requests in 5m: $requests (approximate: $approximate); llmprober RSS $((rss / 1024)) MiB (peak $((hwm / 1024)) MiB); load $(cut -d' ' -f1-3 /proc/loadavg)"
