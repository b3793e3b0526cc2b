#!/usr/bin/env bash
# Measures how well llmprober keeps a constant-rate schedule, and what it
# costs, against the simulated endpoint running in its own process; runs
# vegeta on the same non-streamed workload as the reference load generator.
# Loopback only, bounded in time (about 2.5 minutes with the defaults).
# See docs/benchmarks.md.
#
# Settings (environment):
#   RATES      constant rates to try, requests/s     (default "100 1000 5000")
#   RUNS       which runs at each rate (default "llmprober-non-streamed vegeta
#              llmprober-streamed"); e.g. RUNS=llmprober-streamed RATES="300 500 700"
#              looks for the highest streamed rate kept
#   REPEAT     how many times each run is repeated, back to back (default 1)
#   DURATION   how long each run sends               (default 10s)
#   PAUSE      seconds of rest between runs          (default 5)
#   MAX_LOAD   if set, wait (at most 10 min) before each run until the 1-minute
#              load average is below it
#   ITL, TTFT  the sim's inter-token latency and time to first token (default 0s)
#   PIN        if 1, pin the sim to CPU 1 and the measured tool to CPU 0 (taskset),
#              so that neither takes the other's core
#   PORT       the sim's loopback port               (default 18591)
#   OUT        where binaries, results and the table go (default: a new temp dir)
#   BENCH_CACHE where vegeta is installed            (default ~/.cache/llmprober-bench)
set -euo pipefail

RATES=${RATES:-"100 1000 5000"}
RUNS=${RUNS:-"llmprober-non-streamed vegeta llmprober-streamed"}
DURATION=${DURATION:-10s}
REPEAT=${REPEAT:-1}
PAUSE=${PAUSE:-5}
MAX_LOAD=${MAX_LOAD:-}
PIN=${PIN:-0}
ITL=${ITL:-0s}
TTFT=${TTFT:-0s}
PORT=${PORT:-18591}
OUT=${OUT:-$(mktemp -d -t llmprober-bench.XXXXXX)}
BENCH_CACHE=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmprober-bench}
VEGETA_VERSION=v12.13.0
OUTPUT_TOKENS=64
PROMPT_TOKENS=32
BASE=http://127.0.0.1:$PORT/v1

cd "$(dirname "$0")/../.."
mkdir -p "$OUT" "$BENCH_CACHE/bin"
seconds=${DURATION%s}
case $seconds in *[!0-9]*|'') echo "DURATION must be whole seconds like 10s" >&2; exit 2 ;; esac

log() { echo "[$(date +%T)] $*" >&2; }

install_tools() {
	if [[ ! -x /usr/bin/time ]]; then
		log "installing the Debian package time"
		apt-get update -qq && apt-get install -y -qq time >/dev/null
	fi
	if [[ ! -x $BENCH_CACHE/bin/vegeta ]]; then
		log "installing vegeta $VEGETA_VERSION into $BENCH_CACHE/bin"
		GOBIN=$BENCH_CACHE/bin go install "github.com/tsenart/vegeta/v12@$VEGETA_VERSION"
	fi
	log "building llmprober"
	go build -o "$OUT/llmprober" ./cmd/llmprober
}

SIM_PID=
SIM_CPU=()
TOOL_CPU=()
if [[ $PIN == 1 ]]; then
	SIM_CPU=(taskset -c 1)
	TOOL_CPU=(taskset -c 0)
fi

start_sim() {
	"${SIM_CPU[@]}" "$OUT/llmprober" sim --listen-address "127.0.0.1:$PORT" --ttft "$TTFT" --itl "$ITL" \
		--output-tokens "$OUTPUT_TOKENS" >"$OUT/sim.log" 2>&1 &
	SIM_PID=$!
	for _ in $(seq 100); do
		if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health" 2>/dev/null; then return; fi
		sleep 0.1
	done
	echo "the sim did not answer on port $PORT:" >&2
	cat "$OUT/sim.log" >&2
	exit 1
}

stop_sim() {
	if [[ -n $SIM_PID ]]; then
		kill -TERM "$SIM_PID" 2>/dev/null || true
		wait "$SIM_PID" 2>/dev/null || true
		SIM_PID=
	fi
}
trap stop_sim EXIT

# sim_cpu prints the sim's user+sys CPU seconds so far.
sim_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f\n", ($14 + $15) / hz }' "/proc/$SIM_PID/stat"
}

load1() { cut -d' ' -f1 /proc/loadavg; }

# busy_cpu prints the CPU seconds all processes of the machine have used so far.
busy_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.3f\n", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat
}

wait_for_quiet() {
	sleep "$PAUSE"
	[[ -z $MAX_LOAD ]] && return
	for _ in $(seq 60); do
		awk -v l="$(load1)" -v m="$MAX_LOAD" 'BEGIN { exit !(l < m) }' && return
		log "load average $(load1) >= $MAX_LOAD, waiting"
		sleep 10
	done
	log "load average still $(load1): measuring anyway"
}

# write_vegeta_inputs writes the non-streamed chat request vegeta sends: the
# same shape as llmprober's (32 prompt words, 64 output tokens).
write_vegeta_inputs() {
	local words
	words=$(printf 'the %.0s' $(seq $((PROMPT_TOKENS - 2))))
	printf '{"model":"sim-model","messages":[{"role":"user","content":"probe 0123456789abcdef %s"}],"stream":false,"max_tokens":%d,"max_completion_tokens":%d}' \
		"${words% }" "$OUTPUT_TOKENS" "$OUTPUT_TOKENS" >"$OUT/body.json"
	printf 'POST %s/chat/completions\nContent-Type: application/json\n@%s\n' "$BASE" "$OUT/body.json" >"$OUT/targets.txt"
}

# measure NAME CMD...: runs CMD under /usr/bin/time, bounded, and records the
# load before, the sim's and the whole machine's CPU during the run, and the
# tool's CPU and peak RSS.
measure() {
	local name=$1 sim0 sim1 busy0 busy1
	shift
	wait_for_quiet
	load1 >"$OUT/$name.load"
	sim0=$(sim_cpu)
	busy0=$(busy_cpu)
	log "$name (load $(load1))"
	timeout $((seconds + 60)) /usr/bin/time -f '%U %S %M' -o "$OUT/$name.time" "${TOOL_CPU[@]}" "$@"
	sim1=$(sim_cpu)
	busy1=$(busy_cpu)
	awk -v a="$sim1" -v b="$sim0" 'BEGIN { printf "%.3f\n", a - b }' >"$OUT/$name.simcpu"
	awk -v a="$busy1" -v b="$busy0" 'BEGIN { printf "%.3f\n", a - b }' >"$OUT/$name.busy"
}

# run_llmprober RATE MODE I: the I-th llmprober bench run at RATE.
run_llmprober() {
	local rate=$1 mode=$2 name=llmprober-$2-$1-$3
	local flags=()
	[[ $mode == streamed ]] && flags=(--stream)
	measure "$name" "$OUT/llmprober" bench --target-url "$BASE" --model sim-model --rate "$rate" \
		--duration "$DURATION" --output-tokens "$OUTPUT_TOKENS" --prompt-tokens "$PROMPT_TOKENS" \
		"${flags[@]}" --json >"$OUT/$name.json"
}

# run_vegeta RATE I: the I-th vegeta run at RATE.
run_vegeta() {
	local rate=$1 name=vegeta-non-streamed-$1-$2
	measure "$name" sh -c "'$BENCH_CACHE/bin/vegeta' attack -rate='$rate/1s' -duration='$DURATION' \
		-timeout=30s -targets='$OUT/targets.txt' >'$OUT/$name.bin'"
	"$BENCH_CACHE/bin/vegeta" report -type=json "$OUT/$name.bin" >"$OUT/$name.json"
	rm -f "$OUT/$name.bin"
}

# row NAME TOOL MODE RATE: one table row from the run's files. Both tools'
# achieved rate is requests sent ÷ DURATION; CPU and peak RSS come from
# /usr/bin/time for both (the whole process, start-up included).
row() {
	local name=$1 tool=$2 mode=$3 rate=$4 fields
	read -r user sys rss_kib <"$OUT/$name.time"
	if [[ $tool == llmprober ]]; then
		fields=$(jq -r '[.sent, .dispatch_delay.p50_seconds, .dispatch_delay.p99_seconds, .dispatch_delay.max_seconds,
			.latency.p50_seconds, .latency.p99_seconds, .errored, .dropped, .incomplete] | map(. // -1) | @tsv' "$OUT/$name.json")
	else
		fields=$(jq -r '[.requests, -1, -1, -1, .latencies."50th" / 1e9, .latencies."99th" / 1e9,
			.requests - (.status_codes."200" // 0), 0, 0] | @tsv' "$OUT/$name.json")
	fi
	awk -v tool="$tool" -v mode="$mode" -v rate="$rate" -v secs="$seconds" -v user="$user" -v sys="$sys" \
		-v rss="$rss_kib" -v simcpu="$(cat "$OUT/$name.simcpu")" -v busy="$(cat "$OUT/$name.busy")" \
		-v load="$(cat "$OUT/$name.load")" \
		-v f="$fields" 'BEGIN {
		split(f, v, "\t")
		sent = v[1]; cpu = user + sys; achieved = sent / secs
		delay = v[2] < 0 ? "—" : sprintf("%.3f / %.3f / %.3f", 1000 * v[2], 1000 * v[3], 1000 * v[4])
		errs = tool == "vegeta" ? sprintf("%d errored", v[7]) : sprintf("%d errored, %d dropped, %d cut", v[7], v[8], v[9])
		others = busy - cpu - simcpu
		printf "| %s | %s | %d | %.1f | %+.3f | %s | %.2f / %.2f | %.2f | %.3f | %.0f | %.0f | %.0f | %s | %s |\n",
			tool, mode, rate, achieved, 100 * (achieved - rate) / rate, delay, 1000 * v[5], 1000 * v[6],
			cpu, 1000 * cpu / sent, rss / 1024, 100 * simcpu / secs, 100 * (others > 0 ? others : 0) / secs, errs, load
	}'
}

# cpu_per_request NAME: CPU ms per request sent of the run NAME.
cpu_per_request() {
	local sent
	read -r user sys _ <"$OUT/$1.time"
	if [[ $1 == vegeta-* ]]; then sent=$(jq .requests "$OUT/$1.json"); else sent=$(jq .sent "$OUT/$1.json"); fi
	awk -v u="$user" -v s="$sys" -v n="$sent" 'BEGIN { printf "%.4f\n", 1000 * (u + s) / n }'
}

# ratios prints, per rate and repetition where both ran, llmprober's and
# vegeta's CPU per non-streamed request and their ratio.
ratios() {
	echo "| requested req/s | run | llmprober CPU ms per request | vegeta CPU ms per request | llmprober ÷ vegeta |"
	echo "|---|---|---|---|---|"
	for rate in $RATES; do
		for i in $(seq "$REPEAT"); do
			local a=llmprober-non-streamed-$rate-$i b=vegeta-non-streamed-$rate-$i
			[[ -f $OUT/$a.time && -f $OUT/$b.time ]] || continue
			awk -v r="$rate" -v i="$i" -v x="$(cpu_per_request "$a")" -v y="$(cpu_per_request "$b")" \
				'BEGIN { printf "| %d | %d | %.4f | %.4f | %.2f |\n", r, i, x, y, x / y }'
		done
	done
}

machine() {
	echo "- cores: $(nproc); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "- memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- $(go version); vegeta $VEGETA_VERSION"
	echo "- sim: TTFT $TTFT, ITL $ITL, $OUTPUT_TOKENS output tokens; each run ${DURATION}"
	[[ $PIN == 1 ]] && echo "- pinned: the sim on CPU 1, the measured tool on CPU 0"
	true
	echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
}

main() {
	install_tools
	write_vegeta_inputs
	start_sim
	local rows=()
	for rate in $RATES; do
		for i in $(seq "$REPEAT"); do
			for run in $RUNS; do
				case $run in
				llmprober-non-streamed | llmprober-streamed)
					run_llmprober "$rate" "${run#llmprober-}" "$i"
					rows+=("$(row "$run-$rate-$i" llmprober "${run#llmprober-}" "$rate")")
					;;
				vegeta)
					run_vegeta "$rate" "$i"
					rows+=("$(row "vegeta-non-streamed-$rate-$i" vegeta non-streamed "$rate")")
					;;
				*) echo "unknown run $run" >&2; exit 2 ;;
				esac
			done
		done
	done
	stop_sim
	{
		machine
		echo
		echo "| tool | mode | requested req/s | achieved req/s | rate error % | dispatch delay p50 / p99 / max ms | latency p50 / p99 ms | CPU s | CPU s per 1000 req | peak RSS MiB | sim CPU % | others' CPU % | errors | load before |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		printf '%s\n' "${rows[@]}"
		echo
		ratios
	} | tee "$OUT/results.md"
	log "results in $OUT"
}

main "$@"
