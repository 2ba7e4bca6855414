#!/usr/bin/env bash
# The rolling-restart study on the Kubernetes test bed (docs/testbed.md): the official Pinot chart's
# brokers as pods (each with a CPU request and limit, or none as the chart ships them: ROLLOUT_ARGS
# below; the sidecar added by warmup-inject in the ON
# arms) beside a local real Pinot cluster's ZooKeeper, controller and servers; each rollout is a
# helm upgrade the real StatefulSet controller carries out; the Service is a real HAProxy fed from
# its EndpointSlices; arms off, off_fast, lb_slowstart, on_default, on_fast interleaved (on_slowstart
# and on_c1 on request: ROLLOUT_ARGS=--arms ...).
#
#   scripts/rollout.sh          the full study (make rollout): 3 brokers, 3 rollouts per arm, one
#                               scale-out per arm; writes results/rollout/latest.{json,md} and
#                               latest-<arm>.png. ~4-6 min per rollout on 2 cores (the official chart's
#                               60 s readiness delay per broker; the fast arms less): ~1.5 h. Run it
#                               on a QUIET machine.
#   scripts/rollout.sh smoke    the smoke version (make rollout-smoke, part of make test): 2 brokers,
#                               off and on_fast, 1 rollout each, 5 s probes, output in a temp dir
#                               (or $ROLLOUT_WORK_DIR/out); exit 1 if the tool does not work. ~6 min
#                               once the control plane is built.
#
# Needs root (the test bed puts each pod in its own CPU cgroup) and the control plane that
# scripts/install-kube.sh builds once into ~/.cache (~6 min on a clean machine; WARMUP_KUBE_BIN
# points elsewhere).
#
# Environment:
#   ROLLOUT_MIX         query mix: builtin (default), dashboard, api, mse or reduce
#   ROLLOUT_QUERIES_FILE  a mix of your own instead: one query per line over the bed's bench_events
#                       table ("name: SELECT ..." names one; # comments), e.g. e2e/testdata/mixes/
#   ROLLOUT_RATE        arrivals per second through the Service (default: calibrate on the warm fleet)
#   ROLLOUT_BROKERS     broker pods (default 3)
#   ROLLOUT_ROLLOUTS    rollouts per arm (default 3)
#   ROLLOUT_BASE_PORT   first port of the cluster (default 30000; it uses 70 ports, cluster.PortSpan,
#                       and the pods' host ports follow, 20 per pod)
#   ROLLOUT_WORK_DIR    keep the cluster's, the test bed's and HAProxy's logs and the raw traces there
#   ROLLOUT_ARGS        more flags for `coldstart-bench rollout` (see `coldstart-bench rollout -h`), last:
#                       they win over the script's. The brokers as the official chart ships them
#                       (no CPU request or limit; make rollout-nolimit):
#                       ROLLOUT_ARGS="--broker-cpu-request none --broker-cpu-limit none
#                       --arms off,off_fast,on_default,on_fast,on_boost_300m --name nolimit"
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode="${1:-full}"
case "$mode" in
full | smoke) ;;
*)
	echo "usage: scripts/rollout.sh [full|smoke]" >&2
	exit 2
	;;
esac

# HAProxy (Debian's) is the Service and helm installs the chart; install-tools.sh installs both
# with the other tools. The control plane is built (once) before the clock of the study starts.
PATH="$(bash scripts/install-tools.sh | tail -1):$PATH"
export PATH
if [[ -z "${WARMUP_KUBE_BIN:-}" ]]; then
	WARMUP_KUBE_BIN="$(bash scripts/install-kube.sh | tail -1)"
	export WARMUP_KUBE_BIN
fi

tmp="$(mktemp -d -t rollout-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/coldstart-bench" ./e2e/cmd/coldstart-bench

args=(rollout --base-port "${ROLLOUT_BASE_PORT:-30000}")
if [[ -n "${ROLLOUT_QUERIES_FILE:-}" ]]; then
	if [[ -n "${ROLLOUT_MIX:-}" ]]; then
		echo "rollout: ROLLOUT_MIX=$ROLLOUT_MIX and ROLLOUT_QUERIES_FILE=$ROLLOUT_QUERIES_FILE: give one of them" >&2
		exit 2
	fi
	args+=(--queries-file "$ROLLOUT_QUERIES_FILE")
else
	args+=(--mix "${ROLLOUT_MIX:-builtin}")
fi
if [[ -n "${ROLLOUT_RATE:-}" ]]; then args+=(--rate "$ROLLOUT_RATE"); fi
if [[ -n "${ROLLOUT_WORK_DIR:-}" ]]; then args+=(--work-dir "$ROLLOUT_WORK_DIR"); fi

if [[ "$mode" == full ]]; then
	echo "rollout: machine load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (want it near 0)" >&2
	args+=(--brokers "${ROLLOUT_BROKERS:-3}" --rollouts "${ROLLOUT_ROLLOUTS:-3}" --scale-out --out results/rollout)
else
	args+=(--smoke --out "${ROLLOUT_WORK_DIR:-$tmp}/out")
fi
# shellcheck disable=SC2086 # ROLLOUT_ARGS is a list of flags
"$tmp/coldstart-bench" "${args[@]}" ${ROLLOUT_ARGS:-}
