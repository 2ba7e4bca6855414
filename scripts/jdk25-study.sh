#!/usr/bin/env bash
# Issue 28's measurement on the local real cluster: what the broker's JDK, a JDK AOT cache trained
# by the sidecar's probes, the C1 compiler and Pinot's built-in warmup (emulated) do to the cold
# tail, and what C1 costs in a long reduce-heavy steady run. Run it on a QUIET machine.
#
#   scripts/jdk25-study.sh             all of it: `study` on the builtin mix and on MIX2, then `steady`
#   scripts/jdk25-study.sh study [MIX] the cold-start study on one mix (default builtin), ~10 min per restart round
#   scripts/jdk25-study.sh steady      C2 (the chart's JVM) against C1 only, reduce mix, LOAD each, ROUNDS rounds
#   scripts/jdk25-study.sh smoke       1 restart per arm, short windows: checks the tool, measures nothing
#
# Environment:
#   JDK25        JDK 25+ home for the jdk25 and AOT arms (default /usr/lib/jvm/temurin-25-jdk-amd64)
#   MIX2         the second mix of the full run (default dashboard)
#   RESTARTS     cold restarts per arm (default 5)
#   LOAD         steady load per run (default 30m); ROUNDS steady rounds (default 2)
#   RATE         arrivals/s (default: calibrate); BASE_PORT the cluster's first port (default 29000)
#   WORK_DIR     keep the cluster, broker, AOT and sidecar logs there (default: temp dirs, removed)
#   OUT          output directory (default results/jdk25)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JDK25="${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}"
OUT="${OUT:-results/jdk25}"
mode="${1:-all}"

if [[ ! -x "$JDK25/bin/java" ]]; then
	echo "jdk25-study: JDK25=$JDK25 has no bin/java (want a JDK 25+ home)" >&2
	exit 2
fi
case "$mode" in
all | study | steady | smoke) ;;
*)
	echo "usage: scripts/jdk25-study.sh [all|study [MIX]|steady|smoke]" >&2
	exit 2
	;;
esac

tmp="$(mktemp -d -t jdk25-study.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/coldstart-bench" ./e2e/cmd/coldstart-bench

common=(--base-port "${BASE_PORT:-29000}" --out "$OUT")
if [[ -n "${RATE:-}" ]]; then common+=(--rate "$RATE"); fi
work() { # work NAME: a kept work dir per run when WORK_DIR is set
	if [[ -n "${WORK_DIR:-}" ]]; then echo "--work-dir=$WORK_DIR/$1"; fi
}

# The arms of issue 28: today's JVM (JDK 17, C2), the same on JDK 25, JDK 25 with an AOT cache
# trained by the probes and by the probes then the load, C1 only, and Pinot's built-in warmup.
study_args=(
	--arms on_default,on_default.jdk25,on_aot,on_aot_load,on_c1,upstream_like
	--arm-broker-java "on_default.jdk25:$JDK25"
	--arm-broker-java "on_aot:$JDK25"
	--arm-broker-java "on_aot_load:$JDK25"
)

study() { # study MIX
	echo "jdk25-study: study, mix $1; machine load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (want it near 0)" >&2
	# shellcheck disable=SC2046 # work prints one word or nothing
	"$tmp/coldstart-bench" study "${common[@]}" "${study_args[@]}" --mix "$1" --name "study-$1" \
		--restarts "${RESTARTS:-5}" $(work "study-$1")
}

steady() {
	echo "jdk25-study: steady, reduce mix, C2 against C1, ${LOAD:-30m} per run" >&2
	# shellcheck disable=SC2046
	"$tmp/coldstart-bench" steady "${common[@]}" --mix reduce --name steady-reduce \
		--jvm-mode c2= --jvm-mode c1=-XX:TieredStopAtLevel=1 \
		--load "${LOAD:-30m}" --rounds "${ROUNDS:-2}" $(work steady-reduce)
}

case "$mode" in
all)
	study builtin
	study "${MIX2:-dashboard}"
	steady
	;;
study) study "${2:-builtin}" ;;
steady) steady ;;
smoke)
	# shellcheck disable=SC2046
	"$tmp/coldstart-bench" study "${common[@]}" "${study_args[@]}" --smoke --name smoke-jdk25 $(work smoke)
	;;
esac
