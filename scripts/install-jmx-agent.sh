#!/usr/bin/env bash
# Downloads the Prometheus JMX exporter java agent (io.prometheus.jmx:jmx_prometheus_javaagent) from
# Maven Central into the cache that scripts/install-pinot.sh uses, for the e2e scenario that runs the
# broker with it (WARMUP_JVM_METRICS_URL, issue 10).
#
#   scripts/install-jmx-agent.sh    # prints the jar's path as the LAST line of stdout
#
# Environment:
#   WARMUP_PINOT_CACHE        cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar)
#   WARMUP_JMX_AGENT_VERSION  agent version (default below; 0.20.0 works the same way)
#
# A second run downloads nothing.
set -euo pipefail

version="${WARMUP_JMX_AGENT_VERSION:-1.1.0}"
cache="${WARMUP_PINOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar}"
dir="$cache/jmx-agent-$version"
jar="$dir/jmx_prometheus_javaagent-$version.jar"

if [[ -f "$jar" ]]; then
  echo "$jar"
  exit 0
fi
command -v mvn >/dev/null || { echo "install-jmx-agent: mvn not found on PATH" >&2; exit 1; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$dir"
exec 9>"$dir.lock"
if command -v flock >/dev/null; then flock 9; fi
if [[ -f "$jar" ]]; then
  echo "$jar"
  exit 0
fi
echo "install-jmx-agent: resolving io.prometheus.jmx:jmx_prometheus_javaagent:$version (first run only)" >&2
# The Pinot deps pom is only a project for the plugin to run in; the agent is a single jar.
mvn -q -B -f "$repo_root/e2e/pinot-deps/pom.xml" \
  -Dmaven.repo.local="$cache/m2" \
  -Dartifact="io.prometheus.jmx:jmx_prometheus_javaagent:$version" \
  -DoutputDirectory="$dir" \
  dependency:copy >&2
[[ -f "$jar" ]] || { echo "install-jmx-agent: $jar missing after the download" >&2; exit 1; }
echo "$jar"
