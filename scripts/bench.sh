#!/usr/bin/env bash
# The cold-start benchmark on a local real Pinot cluster (e2e/cluster): warmup OFF vs ON.
#
#   scripts/bench.sh          the full study (make bench): 5 cold broker restarts per arm, arms
#                             interleaved; writes results/coldstart/latest.{json,md,png} for the
#                             builtin mix, results/coldstart/<mix>.{json,md,png} for another
#                             (BENCH_MIX). ~45 min on 2 cores. Run it on a QUIET machine: anything
#                             else running skews it. make bench-mixes runs it for dashboard, api, mse.
#   scripts/bench.sh smoke    the smoke version (make bench-smoke): 1 restart per arm, short windows,
#                             output in a temp dir (or $BENCH_WORK_DIR/out); checks the tool works end
#                             to end (exit 1 if not),
#                             measures nothing. ~5 min.
#
# Environment:
#   BENCH_MIX         query mix: builtin (default), dashboard, api or mse (multi-stage: Pinot >= 1.0)
#   BENCH_RATE        arrival rate in QPS (default: calibrate on the warm broker with the mix;
#                     given, the mix first warms the servers as calibration's first step does)
#   BENCH_RESTARTS    restarts per arm of the full study (default 5)
#   BENCH_BASE_PORT   first port of the study's cluster (default 29000; it uses 70 ports, cluster.PortSpan)
#   BENCH_WORK_DIR    keep the cluster, broker GC, sidecar logs and per-query traces there
#   BENCH_ARGS        more flags for `coldstart-bench study` (see `coldstart-bench study -h`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode="${1:-full}"
case "$mode" in
full | smoke) ;;
*)
	echo "usage: scripts/bench.sh [full|smoke]" >&2
	exit 2
	;;
esac

tmp="$(mktemp -d -t coldstart-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/coldstart-bench" ./e2e/cmd/coldstart-bench

args=(study --base-port "${BENCH_BASE_PORT:-29000}" --mix "${BENCH_MIX:-builtin}")
if [[ -n "${BENCH_RATE:-}" ]]; then args+=(--rate "$BENCH_RATE"); fi
if [[ -n "${BENCH_WORK_DIR:-}" ]]; then args+=(--work-dir "$BENCH_WORK_DIR"); fi

if [[ "$mode" == full ]]; then
	echo "bench: machine load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (want it near 0)" >&2
	args+=(--restarts "${BENCH_RESTARTS:-5}" --out results/coldstart)
else
	args+=(--smoke --out "${BENCH_WORK_DIR:-$tmp}/out")
fi
# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
"$tmp/coldstart-bench" "${args[@]}" ${BENCH_ARGS:-}
