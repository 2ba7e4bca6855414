# syntax=docker/dockerfile:1
# warmup-sidecar: a static Go binary on distroless, non-root (UID 65532), no shell.
#   docker build --build-arg VERSION=0.1.0 -t warmup-sidecar:0.1.0 .

ARG GO_VERSION=1.26

# The build runs on the builder's own platform and cross-compiles (no emulation).
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src

# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download

COPY . .
ARG VERSION=dev
ARG TARGETOS=linux
ARG TARGETARCH=amd64
# Static (no cgo), reproducible paths (-trimpath), the version stamped into main.version.
# scripts/check-packaging.sh runs this very line to build the same binary without Docker.
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# check-packaging: build
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/warmup-sidecar ./cmd/warmup-sidecar

# distroless static: CA certificates, tzdata and /etc/passwd for nonroot; nothing to exec into.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/warmup-sidecar /warmup-sidecar
USER 65532:65532
EXPOSE 9095
ENTRYPOINT ["/warmup-sidecar"]
CMD ["serve"]
