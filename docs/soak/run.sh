#!/usr/bin/env bash
# Soak test: llmprober probes 10 targets of the simulated endpoint at 20
# requests/s in all, with faults of every kind injected, while /metrics, the
# JSON API (with records) and the landing page are read every second and
# misbehaving clients come and go (idle connections, a client that never
# reads its records). Every second it samples llmprober's RSS, heap in use,
# goroutines and open files; every minute it writes their means over the
# minute and the worst 1-minute dispatch-delay p99 of the targets to a
# table, then checks that they stayed flat. Loopback only, bounded in time,
# not run by CI. See docs/soak.md, which it rewrites.
#
# Settings (environment):
#   DURATION   minutes to run                               (default 30)
#   SETTLE     minutes before the figures are compared      (default 6: the
#              longest window, 5m, is full by then)
#   FAULT_RATE the sim's probability of a fault per request (default 0.3)
#   PORT       first of two loopback ports: sim, llmprober  (default 18691)
#   OUT        where the binary, logs and raw figures go    (default: a new temp dir)
#   REPORT     the report to write                          (default docs/soak.md)
#   HOSTILE    1 adds five targets whose every answer is hostile (default 1):
#              endless colon-less SSE lines, endless JSON nesting, an
#              uninvited endless gzip body, header lines that never end,
#              endless unknown realtime messages (the sim's hostile faults)
#   NICE       niceness of the sim and llmprober            (default -10 when
#              allowed, else 0: on a shared machine other processes' load
#              would otherwise be measured as llmprober's dispatch delay)
set -euo pipefail

DURATION=${DURATION:-30}
SETTLE=${SETTLE:-6}
FAULT_RATE=${FAULT_RATE:-0.3}
PORT=${PORT:-18691}
OUT=${OUT:-$(mktemp -d -t llmprober-soak.XXXXXX)}
cd "$(dirname "$0")/../.."
REPORT=${REPORT:-docs/soak.md}
SIM_PORT=$PORT
PROBER_PORT=$((PORT + 1))
BASE=http://127.0.0.1:$PROBER_PORT
TARGETS=10
RATE_PER_TARGET=2
HOSTILE=${HOSTILE:-1}
HOSTILE_RATE=0.5

log() { echo "[$(date +%T)] $*" >&2; }

PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT

REVISION=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -z ${NICE:-} ]]; then
	NICE=0
	if nice -n -10 true 2>/dev/null; then NICE=-10; fi
fi
mkdir -p "$OUT"
log "building llmprober into $OUT"
go build -o "$OUT/llmprober" ./cmd/llmprober

wait_for() { # url
	for _ in $(seq 200); do
		if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "no answer from $1" >&2
	exit 1
}

write_config() {
	echo "listen_address: 127.0.0.1:$PROBER_PORT"
	echo "windows: [1m, 5m]"
	echo "targets:"
	for i in $(seq 0 $((TARGETS - 1))); do
		local api=chat stream=true
		((i % 3 == 1)) && api=completions
		((i % 4 == 3)) && stream=false
		cat <<EOF
  - name: t$i
    base_url: http://127.0.0.1:$SIM_PORT/v1
    model: sim-model
    api: $api
    stream: $stream
    timeout: 2s
    readiness: {path: /health}
    workload: {prompt_tokens: 64, output_tokens: 16}
    schedule: {rate: $RATE_PER_TARGET, max_concurrency: 8, max_queue: 8}
    objectives: [{name: default, latency: 1s}]
EOF
	done
	[[ $HOSTILE == 1 ]] || return 0
	local h
	for h in junk_lines:true junk_lines:false gzip:true endless_header:true; do
		cat <<EOF
  - name: h-${h%%:*}-${h##*:}
    base_url: http://127.0.0.1:$SIM_PORT/v1
    model: sim-model
    stream: ${h##*:}
    timeout: 2s
    headers: {X-Sim-Fault: ${h%%:*}}
    readiness: {path: /health}
    schedule: {rate: $HOSTILE_RATE, max_concurrency: 2, max_queue: 2}
EOF
	done
	cat <<EOF
  - name: h-realtime-junk
    base_url: http://127.0.0.1:$SIM_PORT/v1
    model: sim-model
    backend: openai_websocket
    timeout: 2s
    headers: {X-Sim-Fault: junk_lines}
    readiness: {path: /health}
    realtime: {audio_duration: 200ms, chunk_duration: 100ms}
    schedule: {rate: $HOSTILE_RATE, max_concurrency: 2, max_queue: 2}
EOF
}

log "starting the sim on $SIM_PORT (fault rate $FAULT_RATE) and llmprober on $PROBER_PORT"
nice -n "$NICE" "$OUT/llmprober" sim --listen-address "127.0.0.1:$SIM_PORT" --ttft 30ms --itl 5ms --output-tokens 16 \
	--fault-rate "$FAULT_RATE" --seed 7 >"$OUT/sim.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$SIM_PORT/health"
write_config >"$OUT/llmprober.yml"
nice -n "$NICE" "$OUT/llmprober" run --config "$OUT/llmprober.yml" >"$OUT/llmprober.out" 2>"$OUT/llmprober.log" &
PROBER=$!
PIDS+=($PROBER)
wait_for "$BASE/-/healthy"

# sample: one line of RSS (KiB), heap in use (bytes), goroutines and open
# files of llmprober, from /proc and its /metrics.
sample() {
	local rss fds m
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PROBER/status" 2>/dev/null) || return 0
	fds=$(find "/proc/$PROBER/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	m=$(curl -s --max-time 10 "$BASE/metrics" | awk '
		/^go_memstats_heap_inuse_bytes / { h = $2 } /^go_goroutines / { g = $2 }
		END { if (h != "" && g != "") print h, g }')
	[[ -n $m ]] && echo "$rss $m $fds" >>"$OUT/samples.txt"
}

# readers: every second, /metrics, the API with records, the landing page.
readers() {
	local paths=("/api/v1/targets?records=true" "/api/v1/targets/t0/windows/5m?records=true" "/")
	while kill -0 "$PROBER" 2>/dev/null; do
		sample # reads /metrics too
		for p in "${paths[@]}"; do
			code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$BASE$p" || echo 000)
			echo "$code $p" >>"$OUT/reads.log"
		done
		sleep 1
	done
}

# hostile clients: every 20 s, five connections that send nothing (cut by
# the header timeout) and one records request that is never read (cut by the
# stall timeout); each is dropped after 30 s if the server has not cut it.
hostile() {
	while kill -0 "$PROBER" 2>/dev/null; do
		for _ in 1 2 3 4 5; do
			(exec 3<>"/dev/tcp/127.0.0.1/$PROBER_PORT" && sleep 30) 2>/dev/null &
		done
		(exec 3<>"/dev/tcp/127.0.0.1/$PROBER_PORT" &&
			printf 'GET /api/v1/targets?records=true HTTP/1.1\r\nHost: x\r\n\r\n' >&3 && sleep 30) 2>/dev/null &
		sleep 20
	done
}

readers &
PIDS+=($!)
hostile &
PIDS+=($!)

# metric NAME [REGEX]: the largest sample of NAME whose line matches REGEX.
metric() {
	curl -s --max-time 10 "$BASE/metrics" | grep -E "^$1[{ ]" | grep -E -- "${2:-.}" |
		awk '{ v = $NF + 0; if (!seen || v > max) max = v; seen = 1 } END { if (seen) printf "%.6g", max; else printf "NaN" }'
}

printf 'minute\trss_mib\theap_mib\tgoroutines\topen_files\tdispatch_p99_ms\tload1\n' >"$OUT/figures.tsv"
for minute in $(seq 1 "$DURATION"); do
	sleep 60
	mv "$OUT/samples.txt" "$OUT/samples-$minute.txt" 2>/dev/null || touch "$OUT/samples-$minute.txt"
	p99=$(metric llmprober_window_percentile_seconds 'metric="dispatch_delay",percentile="p99",target="[^"]*",window="1m"')
	load=$(cut -d' ' -f1 /proc/loadavg)
	line=$(awk -v m="$minute" -v p="$p99" -v l="$load" '
		{ r += $1; h += $2; g += $3; f += $4; n++ }
		END { if (n == 0) n = 1; printf "%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%s", m, r/n/1024, h/n/1048576, g/n, f/n, p*1000, l }' \
		"$OUT/samples-$minute.txt")
	echo "$line" >>"$OUT/figures.tsv"
	log "$line"
done

outcomes=$(curl -s "$BASE/metrics" | awk '/^llmprober_requests_total/ {
		match($0, /outcome="[a-z]+"/); o = substr($0, RSTART + 9, RLENGTH - 10)
		match($0, /error_type="[a-z_0-9]+"/); e = RLENGTH > 0 ? substr($0, RSTART + 12, RLENGTH - 13) : ""
		n[o (e == "" ? "" : "/" e)] += $NF }
	END { for (k in n) if (n[k] > 0) printf "%s %d\n", k, n[k] }' | sort)
reads=$(awk '{ n[$1]++ } END { for (c in n) printf "%s×%d ", c, n[c] }' "$OUT/reads.log")
kill -TERM "$PROBER"
wait "$PROBER" || true

# The report: the table, then per column the steady state (minute > SETTLE):
# min, max, mean and the largest deviation from the mean.
{
	cat <<EOF
# Soak test

\`docs/soak/run.sh\` ran llmprober (revision $REVISION) for $DURATION minutes on this machine ($(nproc) cores, $(date -u +%Y-%m-%d)): $TARGETS targets of \`llmprober sim\` (streamed and whole chat and completions) at $RATE_PER_TARGET requests/s each, $((TARGETS * RATE_PER_TARGET)) requests/s in all, with a fault rate of $FAULT_RATE spread over every kind of fault (HTTP 500 and 429, reset, stall until the 2 s timeout, malformed, error event, HTML, truncated)$([[ $HOSTILE == 1 ]] && echo ", and five more targets at $HOSTILE_RATE requests/s each whose every answer is hostile and endless (the sim's \`junk_lines\` streamed and whole, \`gzip\`, \`endless_header\`, and \`junk_lines\` over the realtime WebSocket)"); \`/metrics\`, \`/api/v1/targets?records=true\`, \`/api/v1/targets/t0/windows/5m?records=true\` and the landing page read every second; every 20 s, five connections that send nothing and one records request that is never read. llmprober and the sim ran at niceness $NICE. Each figure is the mean of one sample per second over the minute (\`/proc\` for RSS and open files, \`/metrics\` for the heap in use and goroutines), except the dispatch-delay p99: the largest 1-minute p99 of the ten targets at the minute's end, which follows the load of the machine (its 1-minute load average is the last column; other processes share its cores). Windows \`1m\` and \`5m\`, so the windows are full after 5 minutes; the steady state is compared from minute $((SETTLE + 1)).

Requests by outcome at the end: $(echo "$outcomes" | paste -sd, - | sed 's/,/, /g').
Reads of the HTTP server by status: ${reads% }.

| minute | RSS (MiB) | heap in use (MiB) | goroutines | open files | dispatch delay p99, 1m (ms) | load average |
|---:|---:|---:|---:|---:|---:|---:|
EOF
	tail -n +2 "$OUT/figures.tsv" | awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }'
	echo
	echo "Steady state (minutes $((SETTLE + 1))–$DURATION):"
	echo
	echo "| figure | min | max | mean | largest deviation from the mean |"
	echo "|---|---:|---:|---:|---:|"
	tail -n +2 "$OUT/figures.tsv" | awk -F'\t' -v settle="$SETTLE" '
		NR == 0 { next }
		$1 > settle { for (i = 2; i <= 6; i++) { v[i, ++n[i]] = $i; s[i] += $i } }
		END {
			split("RSS (MiB)|heap in use (MiB)|goroutines|open files|dispatch delay p99 (ms)", name, "|")
			for (i = 2; i <= 6; i++) {
				mean = s[i] / n[i]; lo = hi = v[i, 1]
				for (j = 1; j <= n[i]; j++) { if (v[i, j] < lo) lo = v[i, j]; if (v[i, j] > hi) hi = v[i, j] }
				dev = (mean > 0) ? 100 * ((hi - mean > mean - lo) ? hi - mean : mean - lo) / mean : 0
				printf "| %s | %s | %s | %.2f | %.1f%% |\n", name[i - 1], lo, hi, mean, dev
			}
		}'
} >"$REPORT"
log "wrote $REPORT; raw figures and logs in $OUT"
