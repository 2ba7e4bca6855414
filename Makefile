# warmup-sidecar — every target installs what it needs (see scripts/).
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN := bin/warmup-sidecar
INJECT_BIN := bin/warmup-inject

.PHONY: all build helm-plugin test unit vet packaging image image-test dashboard fuzz footprint bench bench-mixes bench-jdk25 bench-smoke rollout rollout-nolimit rollout-smoke e2e kube-e2e kube-smoke demo bench fuzz clean

all: build

# The same static binary the Dockerfile builds, and the Helm post-renderer (operators'
# machines only; it is not in the image).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/warmup-sidecar
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(INJECT_BIN) ./cmd/warmup-inject

# The post-renderer as a Helm 4 plugin (Helm 4's --post-renderer takes a plugin name only):
# dist/helm-plugin/warmup-inject, then `helm plugin install dist/helm-plugin/warmup-inject`.
helm-plugin:
	bash scripts/helm-plugin.sh dist/helm-plugin/warmup-inject

# What CI runs: vet, unit tests with the race detector, the packaging checks
# (Dockerfile, chart, post-renderer, dashboard), the image, then the later layers.
test: vet unit packaging image-test dashboard fuzz e2e kube-smoke bench-smoke rollout-smoke

# ./... is the product module; ./e2e/... the tooling module (go.work ties them).
vet:
	$(GO) vet ./... ./e2e/...
	$(GO) vet -tags e2e ./e2e/...
	$(GO) vet -tags kube ./e2e/...

unit:
	$(GO) test -race -count=1 ./... ./e2e/...

# hadolint, yamllint, helm lint/template, kubernetes-validate 1.29 + 1.34, warmup-inject on
# the official chart's fixtures; installs its tools first (scripts/install-tools.sh).
packaging:
	bash scripts/check-packaging.sh

# The container image with buildah, no daemon and nothing pulled (the Dockerfile's prebuilt
# target, FROM scratch) for linux/amd64 and linux/arm64: dist/warmup-sidecar.oci.tar (one image
# index tagged $(VERSION)), its index digest and a CycloneDX SBOM per platform. Reproducible.
image:
	PATH="$$(bash scripts/install-tools.sh | tail -1):$$PATH" VERSION=$(VERSION) bash scripts/image.sh

# The archive checked (platforms, labels, size, SBOM, a second build's digest), then the amd64
# image run by podman + runc as the chart's container, beside a fake broker.
image-test: image
	PATH="$$(bash scripts/install-tools.sh | tail -1):$$PATH" $(GO) test -tags image -count=1 -v ./e2e/image/

# A real Prometheus (Debian package) scrapes a warming sidecar; every PromQL
# expression of the chart's Grafana dashboard must return data.
dashboard:
	PATH="$$(bash scripts/install-tools.sh | tail -1):$$PATH" $(GO) test -tags dashboard -count=1 ./e2e/dashboard/

# Every Fuzz* target for FUZZTIME each (default 20s); a crasher fails the run.
fuzz:
	bash scripts/fuzz.sh

# Footprint benchmark (not part of test): wrk on /readyz and /metrics during a
# concurrency-16 warmup, RSS and idle CPU. Reports, does not assert.
footprint:
	bash scripts/footprint.sh

# Real Apache Pinot on loopback (scripts/install-pinot.sh; jars cached): the harness's own
# checks, then every scenario against the real warmup-sidecar binary, then Pinot's own Java client
# (its real jar) selecting brokers from ZooKeeper through broker restarts (~5 min). -p 1: one
# cluster at a time.
e2e:
	$(GO) test -tags e2e -count=1 -p 1 -timeout 60m ./e2e/cluster/ ./e2e/scenarios/ ./e2e/zkclient/

# The Kubernetes test bed (docs/testbed.md): a real control plane built from source once
# (scripts/install-kube.sh, ~6 min, cached), a node agent with a cgroup per pod, the official Pinot
# chart through helm with warmup-inject. kube-smoke: install, sidecar on and off by upgrade,
# uninstall (~3 min once built).
kube-e2e:
	bash scripts/kube-e2e.sh

kube-smoke:
	bash scripts/kube-e2e.sh smoke

# Cold-start study on the real cluster: warmup OFF vs ON (the sidecar's defaults,
# upstream's LIMIT 1 probe, the mix's own shapes), interleaved cold broker restarts,
# open-loop load of the builtin mix at a calibrated rate → results/coldstart/latest.{json,md,png}.
# ~45 min; run on a quiet machine. BENCH_MIX=dashboard|api|mse picks another mix.
bench:
	bash scripts/bench.sh

# The same study on each other shipped mix → results/coldstart/<mix>.{json,md,png}. ~45 min each.
bench-mixes:
	BENCH_MIX=dashboard bash scripts/bench.sh
	BENCH_MIX=api bash scripts/bench.sh
	BENCH_MIX=mse bash scripts/bench.sh

# Issue 28: JDK 17 vs JDK 25, a JDK 25 AOT cache trained by the probes (and by the load), C1 only,
# Pinot's built-in warmup emulated (builtin and dashboard mixes, 5 restarts per arm), then C2 vs C1
# in a 30-minute reduce-heavy steady run → results/jdk25/. Hours; run on a quiet machine.
bench-jdk25:
	bash scripts/jdk25-study.sh

# The same tool, 1 restart per arm and short windows: fails if the tool is broken.
bench-smoke:
	bash scripts/bench.sh smoke

# Rolling restarts (helm upgrade) of the official chart's 3 brokers on the Kubernetes test bed
# (docs/testbed.md#the-rollout-study-on-the-bed; root, the control plane of scripts/install-kube.sh),
# their Service a real HAProxy: arms off, off_fast, lb_slowstart, on_default, on_fast interleaved,
# 3 rollouts each and one scale-out each → results/rollout/latest.{json,md}, latest-<arm>.png.
# The brokers have a 300m CPU request and limit; ROLLOUT_ARGS adds flags (scripts/rollout.sh).
# ~1.5 h; run on a quiet machine.
rollout:
	bash scripts/rollout.sh

# The same study with the brokers as the official chart ships them: no CPU request or limit
# (--broker-cpu-request none --broker-cpu-limit none; ROLLOUT_ARGS="--broker-cpu-request 300m"
# gives them a request and still no limit). Arms off, off_fast, on_default, on_fast and
# on_boost_300m (the boosted gate on brokers of its own 300m request and limit, the reference),
# judged by the targets for brokers without a CPU limit → results/rollout/nolimit.{json,md}.
rollout-nolimit:
	ROLLOUT_ARGS="--broker-cpu-request none --broker-cpu-limit none --arms off,off_fast,on_chart,on_default,on_fast_paced,on_boost_300m --name nolimit $(ROLLOUT_ARGS)" bash scripts/rollout.sh

# The same tool, 2 brokers, off and on_fast, 1 rollout each, 5 s probes: fails if the tool is broken. ~5 min.
rollout-smoke:
	bash scripts/rollout.sh smoke

# README's first command: a local Pinot, a cold broker, the sidecar warming it.
demo:
	$(GO) run ./e2e/demo $(ARGS)

clean:
	rm -rf bin dist
