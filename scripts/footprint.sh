#!/usr/bin/env bash
# Footprint of the sidecar binary, on loopback only:
#   1. probe rate of a concurrency-16 warmup against a Go fake broker (scripts/fakebroker,
#      internal/fakepinot on one address)
#      with no other load, then while wrk hammers /readyz, then /metrics;
#   2. wrk's requests/s on /readyz and /metrics during that warmup;
#   3. RSS (VmRSS, VmHWM from /proc/<pid>/status) during the warmup and at idle;
#   4. CPU at idle after warm, over IDLE seconds (utime+stime from /proc/<pid>/stat).
#
#   scripts/footprint.sh                      # defaults below
#   PHASE=10 IDLE=10 DELAY=2ms scripts/footprint.sh
#
# Needs wrk (apt-get install -y wrk). Every process it starts is stopped by PID on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

phase=${PHASE:-10}        # seconds per measuring phase
idle=${IDLE:-10}          # seconds of idle CPU measurement
delay=${DELAY:-2ms}       # the fake broker's serve time per query
conc=${CONCURRENCY:-16}
wrk_conns=${WRK_CONNS:-16}

command -v wrk >/dev/null || { echo "footprint.sh: wrk not found (apt-get install -y wrk)" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/warmup-sidecar" ./cmd/warmup-sidecar
go build -o "$work/fakebroker" ./scripts/fakebroker

"$work/fakebroker" -delay "$delay" >"$work/broker.url" 2>"$work/broker.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/broker.url" ] && break; sleep 0.05; done
broker=$(head -1 "$work/broker.url")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sidecar="http://127.0.0.1:$port"
budget=$((phase * 3 + 8))
env -i PATH="$PATH" \
	WARMUP_BROKER_URL="$broker" WARMUP_CONTROLLER_URL="$broker" WARMUP_LISTEN_ADDR="127.0.0.1:$port" \
	WARMUP_CONCURRENCY="$conc" WARMUP_MIN_ITERATIONS=1000000000 WARMUP_BUDGET="${budget}s" \
	"$work/warmup-sidecar" serve 2>"$work/sidecar.log" &
spid=$!
pids+=("$spid")

field() { awk -v k="$1:" '$1==k {print $2}' "/proc/$spid/status"; } # kB
ticks() { awk '{print $14 + $15}' "/proc/$spid/stat"; }
queries() { curl -s "$broker/fake/stats" | sed -E 's/.*"queries":([0-9]+).*/\1/'; }
phase_of() { curl -s "$sidecar/status" | sed -nE 's/.*"phase": *"([a-z_]+)".*/\1/p' | head -1; }
hz=$(getconf CLK_TCK)

for _ in $(seq 200); do [ "$(phase_of 2>/dev/null || true)" = warming ] && break; sleep 0.05; done
[ "$(phase_of)" = warming ] || { echo "sidecar never started warming"; cat "$work/sidecar.log"; exit 1; }
sleep 1

rss_max=0
sample_rss() { local r; r=$(field VmRSS); [ "$r" -gt "$rss_max" ] && rss_max=$r; true; }

# measure NAME CMD...: sets rate to the probes/s over the phase while CMD runs.
rate=0
measure() {
	local name=$1; shift
	local q0 t0 q1 t1
	q0=$(queries); t0=$(date +%s.%N)
	"$@" >"$work/$name.out" 2>&1 &
	local job=$!
	pids+=("$job")
	while kill -0 "$job" 2>/dev/null; do sample_rss; sleep 0.5; done
	wait "$job" || true
	q1=$(queries); t1=$(date +%s.%N)
	rate=$(awk -v a="$q0" -v b="$q1" -v s="$t0" -v e="$t1" 'BEGIN{printf "%.0f", (b-a)/(e-s)}')
}

cpu0=$(ticks)
measure no-load sleep "$phase"
r_idle=$rate
measure readyz wrk -t2 -c"$wrk_conns" -d"${phase}s" "$sidecar/readyz"
r_ready=$rate
measure metrics wrk -t2 -c"$wrk_conns" -d"${phase}s" "$sidecar/metrics"
r_metrics=$rate
cpu1=$(ticks)
warm_rss=$(field VmRSS)
hwm=$(field VmHWM)

for _ in $(seq $((budget * 10))); do [ "$(phase_of)" = warm ] && break; sleep 0.1; done
sleep 2
idle_rss0=$(field VmRSS)
c0=$(ticks); t0=$(date +%s.%N)
sleep "$idle"
c1=$(ticks); t1=$(date +%s.%N)
idle_rss=$(field VmRSS)

rps() { awk '/Requests\/sec/ {print $2}' "$work/$1.out"; }
non2xx() { awk '/Non-2xx/ {print $5}' "$work/$1.out"; }
status=$(curl -s "$sidecar/status")
cat <<EOF
footprint: warmup-sidecar $(git describe --always --dirty 2>/dev/null || echo dev), $(nproc) CPU(s), load $(cut -d' ' -f1-3 /proc/loadavg)
  fake broker: serve delay $delay; sidecar: concurrency $conc, ${phase}s per phase
  probe rate, no other load      : $r_idle probes/s
  probe rate, wrk on /readyz     : $r_ready probes/s   (/readyz $(rps readyz) req/s, non-2xx: $(non2xx readyz || true))
  probe rate, wrk on /metrics    : $r_metrics probes/s   (/metrics $(rps metrics) req/s)
  sidecar CPU during the phases  : $(awk -v a="$cpu0" -v b="$cpu1" -v hz="$hz" -v s="$((phase * 3))" 'BEGIN{printf "%.0f%%", 100*(b-a)/hz/s}') of one core
  RSS during warmup              : max sampled $((rss_max / 1024)) MiB, at end $((warm_rss / 1024)) MiB, VmHWM $((hwm / 1024)) MiB
  RSS at idle (warm)             : $((idle_rss0 / 1024)) MiB → $((idle_rss / 1024)) MiB after ${idle}s
  CPU at idle (warm, ${idle}s)     : $((c1 - c0)) ticks ($(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v s0="$t0" -v s1="$t1" 'BEGIN{printf "%.2f%%", 100*(b-a)/hz/(s1-s0)}') of one core)
  outcome                        : $(sed -nE 's/.*"outcome": *"([a-z_]+)".*/\1/p' <<<"$status" | head -1), $(sed -nE 's/.*"probes_succeeded": *([0-9]+).*/\1/p' <<<"$status" | head -1) probes succeeded
EOF
