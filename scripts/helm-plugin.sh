#!/usr/bin/env bash
# Builds the Helm 4 post-renderer plugin directory: helm-plugin/warmup-inject/plugin.yaml and
# bin/warmup-inject, built for this machine (static, -trimpath). `helm plugin install DIR` links
# it into Helm's plugins directory (a local directory needs no signature), so keep DIR in place.
#
# Usage: scripts/helm-plugin.sh [DIR]    (default dist/helm-plugin/warmup-inject; prints DIR)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dir="${1:-dist/helm-plugin/warmup-inject}"
mkdir -p "$dir/bin"
cp helm-plugin/warmup-inject/plugin.yaml "$dir/plugin.yaml"
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$dir/bin/warmup-inject" ./cmd/warmup-inject
echo "$dir"
