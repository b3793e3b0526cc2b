#!/usr/bin/env bash
# many.sh: llmprober run probing TARGETS streamed targets at RATE req/s each
# (one objective set each) against one llmprober sim (TTFT 20 ms, ITL 2 ms,
# 16 output tokens), loopback only; prints llmprober's CPU over DURATION
# seconds after WARMUP (from /proc/PID/stat), its VmRSS and VmHWM, and the
# load average. Settings: TARGETS (200), RATE (0.2), DURATION (150),
# WARMUP (10), OUT (a new temporary directory).
set -euo pipefail
TARGETS=${TARGETS:-200} RATE=${RATE:-0.2} DURATION=${DURATION:-150} WARMUP=${WARMUP:-10}
OUT=${OUT:-$(mktemp -d)}
cd "$(dirname "$0")/../.."

log() { echo "# $*" >&2; }
address() { # address FILE PREFIX: the host:port after PREFIX in FILE
	for _ in $(seq 100); do
		if a=$(grep -o "$2[0-9.:]*" "$1" | sed -n 1p) && [[ -n $a ]]; then
			echo "${a#"$2"}"
			return
		fi
		sleep 0.1
	done
	echo "no address in $1" >&2
	return 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

go build -o "$OUT/llmprober" ./cmd/llmprober
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT
limit=$((WARMUP + DURATION + 60))
timeout "$limit" "$OUT/llmprober" sim --listen-address 127.0.0.1:0 --ttft 20ms --itl 2ms --output-tokens 16 \
	>"$OUT/sim.log" 2>&1 &
pids+=($!)
sim=$(address "$OUT/sim.log" "endpoint: http://")
{
	echo "listen_address: 127.0.0.1:0"
	echo "targets:"
	for i in $(seq "$TARGETS"); do
		cat <<TARGET
  - name: t$i
    base_url: http://$sim/v1
    model: sim-model
    schedule: {rate: $RATE}
    objectives:
      - {name: default, ttft: 500ms, itl: 50ms, latency: 10s, attainment: 0.99, period: 30d}
TARGET
	done
} >"$OUT/llmprober.yml"
timeout "$limit" "$OUT/llmprober" run --config "$OUT/llmprober.yml" >"$OUT/llmprober.log" 2>&1 &
pids+=($!)
address "$OUT/llmprober.log" "listening on " >/dev/null
prober=$(pgrep -P "${pids[1]}") # under timeout
log "probing $TARGETS targets at $RATE req/s each; load $(cut -d' ' -f1-3 /proc/loadavg)"
sleep "$WARMUP"
hz=$(getconf CLK_TCK)
t0=$(ticks "$prober")
sleep "$DURATION"
t1=$(ticks "$prober")
rss=$(awk '/VmRSS/{print $2}' "/proc/$prober/status")
hwm=$(awk '/VmHWM/{print $2}' "/proc/$prober/status")
cpu=$(bc -l <<<"($t1 - $t0) / $hz")
printf 'CPU %.2f s in %d s (%.1f %% of one core); RSS %d MiB (peak %d MiB); load %s\n' \
	"$cpu" "$DURATION" "$(bc -l <<<"100 * $cpu / $DURATION")" $((rss / 1024)) $((hwm / 1024)) "$(cut -d' ' -f1-3 /proc/loadavg)"
