#!/usr/bin/env bash
# Downloads the jars of a local Apache Pinot cluster from Maven Central into a cache outside the repo,
# for the e2e harness (e2e/cluster), `make demo` and the cold-start benchmark.
#
#   scripts/install-pinot.sh        # prints the lib dir as the LAST line of stdout
#
# Environment:
#   WARMUP_PINOT_CACHE    cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar)
#   WARMUP_PINOT_VERSION  Pinot version (default below)
#
# Version: 0.11.0. The Maven registry this project can reach serves only part of Central: for
# org.apache.pinot it has pinot-broker/pinot-controller 1.5.1 but NOT pinot-tools, pinot-server,
# pinot-csv, pinot-query-planner, pinot-avro-base, ... at any 1.x version (1.5.1, 1.5.0, 1.4.0, 1.3.0,
# 1.2.0 all refused). 0.11.0 is the newest version whose pinot-tools resolves with every dependency.
# Set WARMUP_PINOT_VERSION=1.5.1 where the full Central is reachable; the harness is version-agnostic.
#
# A second run downloads nothing: a marker file in the lib dir short-circuits it.
set -euo pipefail

version="${WARMUP_PINOT_VERSION:-0.11.0}"
cache="${WARMUP_PINOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar}"
lib="$cache/pinot-$version/lib"
marker="$cache/pinot-$version/.complete"

if [[ -f "$marker" ]]; then
  echo "$lib"
  exit 0
fi

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pom="$repo_root/e2e/pinot-deps/pom.xml"
for tool in mvn java; do
  command -v "$tool" >/dev/null || { echo "install-pinot: $tool not found on PATH" >&2; exit 1; }
done

mkdir -p "$cache"
# Two test binaries may install at once (go test ./... runs packages in parallel): serialise them.
exec 9>"$cache/install-$version.lock"
if command -v flock >/dev/null; then flock 9; fi
if [[ -f "$marker" ]]; then
  echo "$lib"
  exit 0
fi

start=$(date +%s)
tmp="$cache/pinot-$version/lib.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "install-pinot: resolving org.apache.pinot:pinot-tools:$version into $cache (first run only)" >&2
# Maven's progress goes to stderr so that stdout stays one line: the lib dir.
mvn -q -B -f "$pom" \
  -Dmaven.repo.local="$cache/m2" \
  -Dpinot.version="$version" \
  -Dmdep.includeScope=runtime \
  -DoutputDirectory="$tmp" \
  dependency:copy-dependencies >&2

rm -rf "$lib"
mv "$tmp" "$lib"
touch "$marker"
echo "install-pinot: $(ls "$lib" | wc -l) jars, $(du -sh "$lib" | cut -f1) in $(( $(date +%s) - start ))s" >&2
echo "$lib"
