# syntax=docker/dockerfile:1
# warmup-sidecar: a static Go binary, non-root (UID 65532), no shell. Two targets, one file so they
# cannot drift (e2e/image compares their user, port, entrypoint, command and labels):
#   release (the default, last stage): built from source on distroless, for real registries.
#     docker build --build-arg VERSION=0.1.0 -t warmup-sidecar:0.1.0 .
#   prebuilt: FROM scratch, nothing pulled. Its context is the one scripts/image.sh assembles
#     (linux-<arch>/warmup-sidecar and rootfs/etc): `make image` builds it with buildah.

ARG GO_VERSION=1.26
ARG VERSION=dev
ARG REVISION=unknown
# The repository's LICENSE (SPDX identifier).
ARG LICENSES=Apache-2.0

# The build runs on the builder's own platform and cross-compiles (no emulation).
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src

# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download

COPY . .
ARG VERSION
ARG TARGETOS=linux
ARG TARGETARCH=amd64
# Static (no cgo), reproducible paths (-trimpath), the version stamped into main.version.
# scripts/check-packaging.sh and scripts/image.sh run this very line to build the same binary
# without Docker.
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# check-packaging: build
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/warmup-sidecar ./cmd/warmup-sidecar

# prebuilt: the binary Go cross-compiled for TARGETARCH, the CA bundle, and /etc/passwd and
# /etc/group naming 65532 nonroot as distroless does. Select it with --target prebuilt.
FROM scratch AS prebuilt
ARG TARGETOS
ARG TARGETARCH
ARG VERSION
ARG REVISION
ARG LICENSES
COPY rootfs/ /
COPY ${TARGETOS}-${TARGETARCH}/warmup-sidecar /warmup-sidecar
LABEL org.opencontainers.image.title="warmup-sidecar" \
      org.opencontainers.image.description="Keeps an Apache Pinot broker pod out of service until its serve path is warm" \
      org.opencontainers.image.source="https://github.com/warmup-sidecar/warmup-sidecar" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="${LICENSES}"
USER 65532:65532
EXPOSE 9095
ENTRYPOINT ["/warmup-sidecar"]
CMD ["serve"]

# release: distroless static (CA certificates, tzdata, /etc/passwd for nonroot); nothing to exec into.
FROM gcr.io/distroless/static-debian12:nonroot AS release
ARG VERSION
ARG REVISION
ARG LICENSES
COPY --from=build /out/warmup-sidecar /warmup-sidecar
LABEL org.opencontainers.image.title="warmup-sidecar" \
      org.opencontainers.image.description="Keeps an Apache Pinot broker pod out of service until its serve path is warm" \
      org.opencontainers.image.source="https://github.com/warmup-sidecar/warmup-sidecar" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="${LICENSES}"
USER 65532:65532
EXPOSE 9095
ENTRYPOINT ["/warmup-sidecar"]
CMD ["serve"]
