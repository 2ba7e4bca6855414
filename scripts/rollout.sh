#!/usr/bin/env bash
# The rolling-restart study on a local real Pinot cluster: a fleet of brokers behind HAProxy whose
# backends follow the Kubernetes endpoint model (docs/rollout-model.md), arms off, lb_slowstart,
# on_default, on_slowstart, on_c1 interleaved.
#
#   scripts/rollout.sh          the full study (make rollout): 3 brokers, 3 rollouts per arm, one
#                               scale-out per arm; writes results/rollout/latest.{json,md} and
#                               latest-<arm>.png. ~6 min per rollout on 2 cores (the official chart's
#                               60 s readiness delay per broker): ~1 h 45 min. Run it on a QUIET machine.
#   scripts/rollout.sh smoke    the smoke version (make rollout-smoke, part of make test): 2 brokers,
#                               off and on_slowstart, 1 rollout each, 5 s probes, output in a temp dir
#                               (or $ROLLOUT_WORK_DIR/out); exit 1 if the tool does not work. ~5 min.
#
# Environment:
#   ROLLOUT_MIX         query mix: builtin (default), dashboard, api or mse
#   ROLLOUT_RATE        arrivals per second through the balancer (default: calibrate on the warm fleet)
#   ROLLOUT_BROKERS     brokers in the fleet (default 3; 2 when the machine cannot hold 3)
#   ROLLOUT_ROLLOUTS    rollouts per arm (default 3)
#   ROLLOUT_BASE_PORT   first port of the cluster (default 30000; it uses 70 ports, cluster.PortSpan)
#   ROLLOUT_WORK_DIR    keep the cluster, HAProxy and sidecar logs and the raw traces there
#   ROLLOUT_ARGS        more flags for `coldstart-bench rollout` (see `coldstart-bench rollout -h`)
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

# HAProxy (Debian's) is the Service; install-tools.sh installs it with the other tools.
PATH="$(bash scripts/install-tools.sh | tail -1):$PATH"
export PATH

tmp="$(mktemp -d -t rollout-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/coldstart-bench" ./e2e/cmd/coldstart-bench

args=(rollout --base-port "${ROLLOUT_BASE_PORT:-30000}" --mix "${ROLLOUT_MIX:-builtin}")
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
