#!/usr/bin/env bash
# Builds the sidecar image with buildah: no daemon, nothing pulled. The Dockerfile's `prebuilt`
# target (FROM scratch) for each platform, on the static binary Go cross-compiles with the
# Dockerfile's own build line, into one OCI archive holding one image index tagged with the
# version; beside it the index digest and a CycloneDX SBOM of each platform's binary.
#
# Usage: scripts/image.sh [--platforms linux/amd64,linux/arm64] [--bin-dir DIR] [--out FILE]
#   --platforms  any of linux/amd64 and linux/arm64, comma-separated (default: both)
#   --bin-dir    take DIR/linux-<arch>/warmup-sidecar instead of building it
#   --out        the archive (default dist/warmup-sidecar.oci.tar); FILE minus .oci.tar names the
#                rest: <base>.digest (the index digest), <base>.linux-<arch>.cdx.json (SBOMs)
# Environment: VERSION (default: git describe), SOURCE_DATE_EPOCH (default: the commit's time),
#   CA_BUNDLE (default /etc/ssl/certs/ca-certificates.crt).
#
# Reproducible: the same commit, Go toolchain and CA bundle give the same index digest and the
# same archive bytes (timestamps are SOURCE_DATE_EPOCH, buildah's version label is left out, the
# archive is tarred in name order with fixed owners and times).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUPPORTED="linux/amd64 linux/arm64"

die() {
	echo "image: $*" >&2
	exit 2
}

platforms="linux/amd64,linux/arm64"
bin_dir=""
out="$ROOT/dist/warmup-sidecar.oci.tar"
while (($# > 0)); do
	case "$1" in
	--platforms | --bin-dir | --out) (($# >= 2)) || die "$1 needs a value" ;;
	*) die "unknown argument \"$1\": expected --platforms, --bin-dir or --out" ;;
	esac
	case "$1" in
	--platforms) platforms="$2" ;;
	--bin-dir) bin_dir="$2" ;;
	--out) out="$2" ;;
	esac
	shift 2
done

# ---- inputs first, then tools: every refusal is one line and exit 2 -----------------------
IFS=, read -r -a plats <<<"$platforms"
((${#plats[@]} > 0)) || die "--platforms is empty: expected one or more of ${SUPPORTED// /, }"
for p in "${plats[@]}"; do
	[[ " $SUPPORTED " == *" $p "* ]] || die "unsupported platform \"$p\": expected one or more of ${SUPPORTED// /, }"
done

# Paths the caller gave are the caller's, from here on absolute.
out="$(realpath -m "$out")"
[[ -z "$bin_dir" ]] || bin_dir="$(realpath -m "$bin_dir")"
cd "$ROOT"
VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || true)}"
[[ -n "$VERSION" ]] || die "VERSION is not set and git describe found no commit: set VERSION"
[[ "$VERSION" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] ||
	die "VERSION \"$VERSION\" is not a valid image tag: letters, digits, _ . - (at most 128, not starting with . or -)"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || true)}"
[[ "$SOURCE_DATE_EPOCH" =~ ^[0-9]+$ ]] ||
	die "SOURCE_DATE_EPOCH \"$SOURCE_DATE_EPOCH\" is not seconds since 1970 (and git gave no commit time)"
CA_BUNDLE="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
[[ -s "$CA_BUNDLE" ]] || die "no CA bundle at $CA_BUNDLE: install ca-certificates or set CA_BUNDLE"

if [[ -n "$bin_dir" ]]; then
	for p in "${plats[@]}"; do
		bin="$bin_dir/${p/\//-}/warmup-sidecar"
		[[ -f "$bin" && -x "$bin" ]] || die "no executable binary for $p at $bin (scripts/image-binary.sh builds one)"
	done
fi

command -v buildah >/dev/null 2>&1 || die "buildah not found on PATH: apt-get install buildah (scripts/install-tools.sh installs it)"
command -v cyclonedx-gomod >/dev/null 2>&1 ||
	die "cyclonedx-gomod not found on PATH: scripts/install-tools.sh installs it (export PATH=\"\$(scripts/install-tools.sh | tail -1):\$PATH\")"

base="${out%.oci.tar}"

# ---- the build context: Dockerfile, rootfs/etc, linux-<arch>/warmup-sidecar ----------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/warmup-image.XXXXXX")"
cleanup() {
	if [[ $(id -u) -ne 0 ]]; then
		# Rootless storage holds files of the user namespace's other IDs.
		buildah unshare rm -rf "$WORK/storage" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

ctx="$WORK/context"
# Everything lands in $WORK/out first and moves beside $out together, at the end.
staged="$WORK/out"
mkdir -p "$ctx/rootfs/etc/ssl/certs" "$staged"
cp Dockerfile "$ctx/"
cp image/rootfs/etc/passwd image/rootfs/etc/group "$ctx/rootfs/etc/"
cp "$CA_BUNDLE" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
chmod 0644 "$ctx/rootfs/etc/passwd" "$ctx/rootfs/etc/group" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
for p in "${plats[@]}"; do
	dir="$ctx/${p/\//-}"
	if [[ -n "$bin_dir" ]]; then
		mkdir -p "$dir"
		cp "$bin_dir/${p/\//-}/warmup-sidecar" "$dir/"
	else
		scripts/image-binary.sh "${p%/*}" "${p#*/}" "$VERSION" "$dir" >&2
	fi
	chmod 0755 "$dir/warmup-sidecar"
	GOOS="${p%/*}" GOARCH="${p#*/}" cyclonedx-gomod bin -json -std -noserial -notimestamp \
		-version "$VERSION" -output "$staged/${p/\//-}.cdx.json" "$dir/warmup-sidecar"
done

# ---- buildah: one image per platform, one index, pushed to an OCI layout ------------------
# Storage lives in $WORK (vfs: no overlay mounts to leak); chroot isolation needs no runtime.
printf '[storage]\ndriver = "vfs"\ngraphroot = "%s"\nrunroot = "%s"\n' "$WORK/storage" "$WORK/run" >"$WORK/storage.conf"
export CONTAINERS_STORAGE_CONF="$WORK/storage.conf" BUILDAH_ISOLATION=chroot TMPDIR="$WORK"
list="localhost/warmup-sidecar:$VERSION"
build() {
	local p
	for p in "$@"; do
		buildah build --quiet --platform "$p" --target prebuilt \
			--timestamp "$SOURCE_DATE_EPOCH" --identity-label=false \
			--build-arg "VERSION=$VERSION" --build-arg "REVISION=$REVISION" \
			--manifest "$list" -f "$ctx/Dockerfile" "$ctx" >/dev/null
	done
	buildah manifest push --quiet --all --format oci --digestfile "$WORK/digest" "$list" "oci:$WORK/layout:$VERSION"
}
if [[ $(id -u) -eq 0 ]]; then
	# As root, containers/image keeps a blob-info cache in /var/lib/containers/cache and buildah
	# has no flag to move it: in a private mount namespace /var/lib is $WORK/varlib instead.
	mkdir -p "$WORK/varlib"
	export -f build
	export ctx list SOURCE_DATE_EPOCH VERSION REVISION WORK
	unshare --mount --propagation private -- bash -c \
		'mount --bind "$WORK/varlib" /var/lib && build "$@"' build "${plats[@]}"
else
	build "${plats[@]}"
fi

# ---- the archive: name order, fixed owner, mode and time, so equal layouts tar equal bytes --
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
	--mode='u=rwX,go=rX' --format=gnu -C "$WORK/layout" -cf "$staged/archive" .
mkdir -p "$(dirname "$out")"
for p in "${plats[@]}"; do
	mv "$staged/${p/\//-}.cdx.json" "$base.${p/\//-}.cdx.json"
done
mv "$WORK/digest" "$base.digest"
mv "$staged/archive" "$out"
echo "image: $out ($VERSION, ${plats[*]}): index $(cat "$base.digest")"
