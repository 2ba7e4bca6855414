#!/usr/bin/env bash
# Builds the sidecar's static binary with the Dockerfile's own build line (its `ENV CGO_ENABLED...`
# and the RUN after "# check-packaging: build"), so the binary built without Docker is the one
# the release target builds. Only BuildKit's cache mounts are dropped and /out/ moves to OUT_DIR.
#
# Usage: scripts/image-binary.sh OS ARCH VERSION OUT_DIR    (writes OUT_DIR/warmup-sidecar)
set -euo pipefail

if (($# != 4)); then
	echo "image-binary: usage: scripts/image-binary.sh OS ARCH VERSION OUT_DIR" >&2
	exit 2
fi
os="$1" arch="$2" version="$3" out_dir="$4"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

env_line="$(grep -m1 '^ENV CGO_ENABLED' Dockerfile || true)"
run_line="$(grep -A1 '^# check-packaging: build' Dockerfile | tail -1)"
if [[ -z "$env_line" || "$run_line" != RUN* ]]; then
	echo "image-binary: cannot find the build ENV/RUN lines in $ROOT/Dockerfile" >&2
	exit 2
fi
cmd="${run_line#RUN }"
cmd="$(sed -E 's/--mount=[^ ]+ //g' <<<"$cmd")"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
cmd="${cmd//\/out\//$out_dir\/}"
echo "export ${env_line#ENV }"
echo "$cmd"
eval "export ${env_line#ENV }"
# The image's build context has no go.work: the product module alone, as here.
export GOWORK=off
export VERSION="$version" TARGETOS="$os" TARGETARCH="$arch"
eval "$cmd"
