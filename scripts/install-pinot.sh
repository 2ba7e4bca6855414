#!/usr/bin/env bash
# Downloads the jars of a local Apache Pinot cluster from Maven Central into a cache outside the repo,
# for the e2e harness (e2e/cluster), `make demo` and the cold-start benchmark.
#
#   scripts/install-pinot.sh            # Pinot: prints the lib dir as the LAST line of stdout
#   scripts/install-pinot.sh kafka      # Apache Kafka (KRaft broker + console producer): its lib dir
#   scripts/install-pinot.sh jmx-agent  # the Prometheus JMX exporter java agent: the jar's path
#
# Environment:
#   WARMUP_PINOT_CACHE    cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar)
#   WARMUP_PINOT_VERSION  Pinot version (default 1.5.1)
#   WARMUP_PINOT_M2       extra file-based Maven repository (default ../shared/pinot-m2 beside the repo,
#                         when it exists)
#
# Version: 1.5.1 (e2e/pinot-deps/pom.xml). The Maven registry this project's machines reach refuses a
# few Pinot 1.x modules (pinot-tools, pinot-server, the query planner/runtime, some plugins);
# ../shared/pinot-m2 holds exactly those, built unmodified from the release tag, and is added as an
# extra repository. With the full Maven Central nothing extra is needed.
# WARMUP_PINOT_VERSION=0.11.0 is the by-hand compatibility check (e2e/pinot-deps/pom-0.11.xml).
#
# A second run downloads nothing: a marker file beside the lib dir short-circuits it.
set -euo pipefail

what="${1:-pinot}"
cache="${WARMUP_PINOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kafka_version=3.9.2
jmx_agent_version=1.0.1 # the newest the registry serves; its JVM metrics include compilation time

mvn_args=()
case "$what" in
  pinot)
    version="${WARMUP_PINOT_VERSION:-1.5.1}"
    name="pinot-$version"
    pom="$repo_root/e2e/pinot-deps/pom.xml"
    case "$version" in 0.*) pom="$repo_root/e2e/pinot-deps/pom-0.11.xml" ;; esac
    m2="${WARMUP_PINOT_M2:-$repo_root/../shared/pinot-m2}"
    if [[ -d "$m2" ]]; then mvn_args+=("-Dpinot.m2.url=file://$(cd "$m2" && pwd)"); fi
    mvn_args+=(-f "$pom" "-Dpinot.version=$version" -Dmdep.includeScope=runtime dependency:copy-dependencies)
    ;;
  kafka)
    name="kafka-$kafka_version"
    mvn_args+=(-f "$repo_root/e2e/kafka-deps/pom.xml" "-Dkafka.version=$kafka_version"
      -Dmdep.includeScope=runtime dependency:copy-dependencies)
    ;;
  jmx-agent)
    name="jmx-agent-$jmx_agent_version"
    mvn_args+=(-f "$repo_root/e2e/kafka-deps/pom.xml"
      "-Dartifact=io.prometheus.jmx:jmx_prometheus_javaagent:$jmx_agent_version" dependency:copy)
    ;;
  *)
    echo "install-pinot: unknown component '$what' (want pinot, kafka or jmx-agent)" >&2
    exit 2
    ;;
esac
lib="$cache/$name/lib"
marker="$cache/$name/.complete"

result() {
  if [[ "$what" == jmx-agent ]]; then echo "$lib/jmx_prometheus_javaagent-$jmx_agent_version.jar"; else echo "$lib"; fi
}
if [[ -f "$marker" ]]; then
  result
  exit 0
fi

for tool in mvn java; do
  command -v "$tool" >/dev/null || { echo "install-pinot: $tool not found on PATH" >&2; exit 1; }
done

mkdir -p "$cache"
# Two test binaries may install at once (go test ./... runs packages in parallel): serialise them.
exec 9>"$cache/install-$name.lock"
if command -v flock >/dev/null; then flock 9; fi
if [[ -f "$marker" ]]; then
  result
  exit 0
fi

start=$(date +%s)
tmp="$cache/$name/lib.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "install-pinot: resolving $name into $cache (first run only)" >&2
# Maven's progress goes to stderr so that stdout stays one line: the lib dir.
mvn -q -B -Dmaven.repo.local="$cache/m2" -DoutputDirectory="$tmp" "${mvn_args[@]}" >&2

rm -rf "$lib"
mv "$tmp" "$lib"
touch "$marker"
echo "install-pinot: $name: $(ls "$lib" | wc -l) jars, $(du -sh "$lib" | cut -f1) in $(( $(date +%s) - start ))s" >&2
result
