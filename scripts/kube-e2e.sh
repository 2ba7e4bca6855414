#!/usr/bin/env bash
# The Kubernetes test bed's checks (docs/testbed.md): a real control plane built from source
# (scripts/install-kube.sh, cached), the node agent with a cgroup per pod, the official Pinot chart
# installed, upgraded and uninstalled by the real helm with warmup-inject as its post-renderer.
#
# Usage: scripts/kube-e2e.sh          # every test of e2e/kube (make kube-e2e)
#        scripts/kube-e2e.sh smoke    # install, upgrades, uninstall (make test)
# A machine that cannot run it says why in one line and exits 2.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "kube-e2e: $*" >&2
	exit 2
}

command -v go >/dev/null 2>&1 || die "go is not on PATH (Go 1.26 builds the control plane and the tests)"
command -v java >/dev/null 2>&1 || [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]] ||
	die "java is not on PATH and JAVA_HOME is unset (Java 17+ runs the Pinot brokers)"
# Every pod runs in its own cgroup with its CPU limit: without a writable cgroup v1 cpu controller
# the test bed refuses to run rather than run without isolation.
probe="/sys/fs/cgroup/cpu/warmup-kube-e2e-probe-$$"
if ! mkdir "$probe" 2>/dev/null || ! echo 50000 >"$probe/cpu.cfs_quota_us" 2>/dev/null; then
	rmdir "$probe" 2>/dev/null || true
	die "no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu (each pod's CPU limit is a CFS quota there)"
fi
rmdir "$probe"

WARMUP_KUBE_BIN="$(bash scripts/install-kube.sh | tail -1)"
export WARMUP_KUBE_BIN
# helm, and Debian's haproxy (the Service's load balancer)
PATH="$(bash scripts/install-tools.sh | tail -1):$PATH:/usr/sbin"
export PATH

case "${1:-all}" in
smoke)
	exec go test -tags kube -count=1 -timeout 30m -run 'TestHelmLifecycle' ./e2e/kube/testbed/
	;;
all)
	exec go test -tags kube -count=1 -p 1 -timeout 90m ./e2e/kube/...
	;;
*)
	die "usage: scripts/kube-e2e.sh [smoke]"
	;;
esac
