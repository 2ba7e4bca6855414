#!/usr/bin/env bash
# Checks the Kubernetes packaging: Dockerfile, chart, schema, dashboard, the warmup-inject
# post-renderer, and the static binary the Dockerfile builds. Prints one line per check and a
# closing "N passed, M failed"; exits non-zero if any check failed.
#
# Usage: scripts/check-packaging.sh      (installs its tools first: scripts/install-tools.sh)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
FIXTURES="${WARMUP_FIXTURES:-$ROOT/testdata/pinot-helm}"
CHART=charts/pinot-broker-warmup
UMBRELLA=charts/examples/pinot-broker-with-warmup
# Kubernetes versions to validate against: the oldest with native sidecars, and a current one.
KUBE_VERSIONS=(1.29.0 1.34.0)
# brokerCpuBoost needs in-place pod resize, on by default from 1.33: a current one only.
BOOST_KUBE_VERSIONS=(1.34.0)

BIN_DIR="$(scripts/install-tools.sh | tail -1)" || {
	echo "check-packaging: scripts/install-tools.sh failed" >&2
	exit 2
}
export PATH="$BIN_DIR:$PATH"
# The tools venv has PyYAML (a kubernetes-validate dependency) for the structural checks.
PYTHON="$BIN_DIR/../venv/bin/python"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
failures=()

# check NAME CMD...: runs CMD with its output in a log, shown only on failure.
check() {
	local name="$1"
	shift
	local log="$WORK/log"
	if "$@" >"$log" 2>&1; then
		passed=$((passed + 1))
		printf 'PASS  %s\n' "$name"
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf 'FAIL  %s\n' "$name"
		sed 's/^/      /' "$log" | tail -40
	fi
}

# must_fail NAME CMD...: the check passes only if CMD fails.
must_fail() {
	local name="$1"
	shift
	check "$name" negate "$@"
}
negate() { ! "$@"; }

# validate FILE VERSION: kubernetes-validate --strict. The only warning allowed is the
# PodMonitor's: its CRD schema is not bundled with kubernetes-validate.
validate() {
	local out
	out="$(kubernetes-validate --strict --kubernetes-version "$2" "$1" 2>&1)" || {
		echo "$out"
		return 1
	}
	echo "$out"
	if grep -v "Couldn't find schema for kind PodMonitor" <<<"$out" | grep -q '^WARN'; then
		echo "unexpected warning"
		return 1
	fi
}

# sidecar_in FILE LIST: the rendered broker StatefulSets (those with a container named broker:
# a renamed chart's labels differ) each hold the sidecar exactly once, in LIST (containers or
# initContainers); in initContainers it must be a native sidecar (restartPolicy: Always) and no
# sidecar may have a startupProbe (it would gate on warmth).
sidecar_in() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import sys, yaml
path, want = sys.argv[1], sys.argv[2]
brokers = [d for d in yaml.safe_load_all(open(path)) if d and d.get("kind") == "StatefulSet"
           and any(c["name"] == "broker" for c in d["spec"]["template"]["spec"].get("containers") or [])]
if not brokers:
    sys.exit("no broker StatefulSet in " + path)
for sts in brokers:
    pod = sts["spec"]["template"]["spec"]
    found = [(lst, c) for lst in ("containers", "initContainers") for c in (pod.get(lst) or [])
             if c["name"] == "warmup-sidecar"]
    if len(found) != 1 or found[0][0] != want:
        sys.exit(f"{sts['metadata']['name']}: sidecar found as {[f[0] for f in found]}, want once in {want}")
    c = found[0][1]
    if "startupProbe" in c:
        sys.exit("the sidecar has a startupProbe")
    if want == "initContainers" and c.get("restartPolicy") != "Always":
        sys.exit("native sidecar without restartPolicy: Always")
    print(f"{sts['metadata']['name']}: one sidecar in {want}, restartPolicy={c.get('restartPolicy')}")
EOF
}

# c1_in FILE WANT: the JVM option brokerJvm.c1Only adds is in the broker container's JAVA_OPTS
# of every broker StatefulSet WANT times (1 or 0), and in no other container's JVM options.
c1_in() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import sys, yaml
path, want = sys.argv[1], int(sys.argv[2])
flag = "-XX:TieredStopAtLevel=1"
brokers = 0
for d in yaml.safe_load_all(open(path)):
    if not d or d.get("kind") not in ("StatefulSet", "Deployment"):
        continue
    is_broker = d["spec"]["template"]["metadata"].get("labels", {}).get("component") == "broker"
    pod = d["spec"]["template"]["spec"]
    for c in (pod.get("containers") or []) + (pod.get("initContainers") or []):
        for e in c.get("env") or []:
            if e.get("name") != "JAVA_OPTS":
                continue
            n = (e.get("value") or "").split().count(flag)
            where = f"{d['kind']} {d['metadata']['name']} container {c['name']}"
            if is_broker and c["name"] == "broker":
                brokers += 1
                if n != want:
                    sys.exit(f"{where}: {flag} {n} times in JAVA_OPTS, want {want}")
            elif n:
                sys.exit(f"{where}: {flag} in JAVA_OPTS: only the broker's may have it")
            print(f"{where}: {flag} x{n}")
if not brokers:
    sys.exit("no broker container with JAVA_OPTS in " + path)
EOF
}

# aot_in FILE MODE: brokerJvm.aotCache in MODE (use, train or off) as every broker pod should
# carry it: the JVM options once in the broker container's JAVA_OPTS (and no AOT option in any
# other container's), the cache and log volumes mounted in the broker, the log read-only in the
# sidecar with WARMUP_BROKER_AOT_LOG pointing at it.
aot_in() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import sys, yaml
path, mode = sys.argv[1], sys.argv[2]
flag = {"use": "-XX:AOTCache=", "train": "-XX:AOTCacheOutput="}.get(mode)
brokers = 0
for d in yaml.safe_load_all(open(path)):
    if not d or d.get("kind") not in ("StatefulSet", "Deployment"):
        continue
    is_broker = d["spec"]["template"]["metadata"].get("labels", {}).get("component") == "broker"
    pod = d["spec"]["template"]["spec"]
    vols = {v["name"] for v in pod.get("volumes") or []}
    for c in (pod.get("containers") or []) + (pod.get("initContainers") or []):
        where = f"{d['kind']} {d['metadata']['name']} container {c['name']}"
        opts = " ".join((e.get("value") or "") for e in c.get("env") or [] if e.get("name") == "JAVA_OPTS").split()
        aot = [o for o in opts if o.startswith("-XX:AOTCache") or o.startswith("-Xlog:aot")]
        mounts = {m["name"]: m for m in c.get("volumeMounts") or []}
        env = {e["name"]: e.get("value") for e in c.get("env") or []}
        if is_broker and c["name"] == "broker":
            brokers += 1
            if flag is None:
                if aot or "warmup-aot-cache" in mounts:
                    sys.exit(f"{where}: AOT options {aot} or mounts with aotCache off")
                continue
            if len(aot) != 2 or sum(o.startswith(flag) for o in aot) != 1 or sum(o.startswith("-Xlog:aot") for o in aot) != 1:
                sys.exit(f"{where}: AOT options {aot}, want one {flag}... and one -Xlog:aot")
            cache = mounts.get("warmup-aot-cache")
            if not cache or bool(cache.get("readOnly")) != (mode == "use") or "warmup-aot-log" not in mounts:
                sys.exit(f"{where}: mounts {sorted(mounts)}, want warmup-aot-cache (readOnly only in use) and warmup-aot-log")
            if not {"warmup-aot-cache", "warmup-aot-log"} <= vols:
                sys.exit(f"{where}: pod volumes {sorted(vols)} lack warmup-aot-cache/warmup-aot-log")
            print(f"{where}: {aot}")
        elif aot:
            sys.exit(f"{where}: AOT options in JAVA_OPTS: only the broker's may have them")
        elif c["name"] == "warmup-sidecar" and flag is not None:
            log = mounts.get("warmup-aot-log")
            if not log or not log.get("readOnly") or not (env.get("WARMUP_BROKER_AOT_LOG") or "").startswith(log["mountPath"]):
                sys.exit(f"{where}: log mount {log}, WARMUP_BROKER_AOT_LOG {env.get('WARMUP_BROKER_AOT_LOG')}")
if not brokers:
    sys.exit("no broker container in " + path)
EOF
}

# probes_in FILE SOURCE MODE: the probes of every broker StatefulSet in FILE, against the same
# StatefulSet in SOURCE (before the sidecar decided anything). MODE chart (the chart decides:
# brokerReadiness.decidedBy chart, or auto on a broker with a CPU limit and no boost): the broker
# container's probes are SOURCE's and the sidecar's readinessProbe
# samples every 5 s (2 failures). MODE sidecar: the broker's readinessProbe and startupProbe start at
# once and sample every second, a failure lasting as long as in SOURCE (period x failureThreshold,
# plus the initial delay for a startupProbe), the check itself kept; the sidecar's readinessProbe
# every second, 10 failures. The livenessProbe is SOURCE's in both modes.
probes_in() {
	"$PYTHON" - "$1" "$2" "$3" <<'EOF'
import sys, yaml
path, source, mode = sys.argv[1], sys.argv[2], sys.argv[3]
def brokers(p):
    out = {}
    for d in yaml.safe_load_all(open(p)):
        if d and d.get("kind") == "StatefulSet":
            pod = d["spec"]["template"]["spec"]
            if any(c["name"] == "broker" for c in pod.get("containers") or []):
                out[d["metadata"]["name"]] = pod
    return out
def gated(p, startup):
    d, per, ft = p.get("initialDelaySeconds", 0), p.get("periodSeconds", 10), p.get("failureThreshold", 3)
    np = min(per, 1)
    w = per * ft + (d if startup else 0)
    q = dict(p)
    for k, v, dflt in (("initialDelaySeconds", 0, 0), ("periodSeconds", np, 10), ("failureThreshold", -(-w // np), 3)):
        if k in q or v != dflt:
            q[k] = v
    return q
got, src = brokers(path), brokers(source)
if not got:
    sys.exit("no broker StatefulSet in " + path)
for name, pod in got.items():
    broker = next(c for c in pod["containers"] if c["name"] == "broker")
    before = next(c for c in src[name]["containers"] if c["name"] == "broker")
    for kind in ("readinessProbe", "startupProbe", "livenessProbe"):
        want = before.get(kind)
        if want is not None and mode == "sidecar" and kind != "livenessProbe":
            want = gated(want, kind == "startupProbe")
        if broker.get(kind) != want:
            sys.exit(f"{name}: broker {kind} {broker.get(kind)}, want {want}")
        print(f"{name}: broker {kind} {broker.get(kind)}")
    side = [c for c in (pod.get("containers") or []) + (pod.get("initContainers") or []) if c["name"] == "warmup-sidecar"]
    if len(side) != 1:
        sys.exit(f"{name}: {len(side)} sidecars")
    rp = side[0]["readinessProbe"]
    want = (1, 10) if mode == "sidecar" else (5, 2)
    if (rp.get("periodSeconds"), rp.get("failureThreshold")) != want or rp.get("initialDelaySeconds", 0) != 0:
        sys.exit(f"{name}: sidecar readinessProbe {rp}, want periodSeconds/failureThreshold {want}, no initial delay")
    print(f"{name}: sidecar readinessProbe {rp}")
EOF
}

# boost_in FILE LIMIT: brokerCpuBoost as every broker pod should carry it: the broker container's
# CPU limit LIMIT, resized in place (resizePolicy cpu NotRequired), the pod running as its own
# ServiceAccount without an automounted token, whose token is projected into the sidecar alone;
# the sidecar told what to give back and who it is; a Role that allows get on the broker pods
# and patch on their resize subresource, by name, and nothing else, bound to that ServiceAccount;
# and the ValidatingAdmissionPolicy that holds that ServiceAccount's resizes to its own pod, bound
# (Deny) in the release namespace.
boost_in() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import sys, yaml
path, limit = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(path)) if d]
brokers = [d for d in docs if d.get("kind") == "StatefulSet"
           and any(c["name"] == "broker" for c in d["spec"]["template"]["spec"].get("containers") or [])]
if not brokers:
    sys.exit("no broker StatefulSet in " + path)
for sts in brokers:
    name, pod = sts["metadata"]["name"], sts["spec"]["template"]["spec"]
    sa = pod.get("serviceAccountName")
    if pod.get("automountServiceAccountToken") is not False:
        sys.exit(f"{name}: automountServiceAccountToken {pod.get('automountServiceAccountToken')}, want false")
    conts = {c["name"]: c for c in (pod.get("containers") or []) + (pod.get("initContainers") or [])}
    broker, side = conts["broker"], conts["warmup-sidecar"]
    if str(broker["resources"]["limits"]["cpu"]) != limit:
        sys.exit(f"{name}: broker CPU limit {broker['resources']['limits']['cpu']}, want {limit}")
    if {"resourceName": "cpu", "restartPolicy": "NotRequired"} not in (broker.get("resizePolicy") or []):
        sys.exit(f"{name}: broker resizePolicy {broker.get('resizePolicy')}")
    for cname, c in conts.items():
        mounts = {m["name"] for m in c.get("volumeMounts") or []}
        if ("warmup-kube-api" in mounts) != (cname == "warmup-sidecar"):
            sys.exit(f"{name}: container {cname} mounts {sorted(mounts)}: only the sidecar may mount the token")
    vol = {v["name"]: v for v in pod.get("volumes") or []}.get("warmup-kube-api") or {}
    sources = [list(s)[0] for s in (vol.get("projected") or {}).get("sources") or []]
    if sources != ["serviceAccountToken", "configMap"]:
        sys.exit(f"{name}: warmup-kube-api volume sources {sources}")
    env = {e["name"]: e for e in side.get("env") or []}
    for k in ("WARMUP_CPU_BOOST_ENABLED", "WARMUP_CPU_BOOST_TARGET_LIMIT", "WARMUP_POD_NAME", "WARMUP_POD_NAMESPACE"):
        if k not in env:
            sys.exit(f"{name}: sidecar env lacks {k}")
    if env["WARMUP_POD_NAME"].get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") != "metadata.name":
        sys.exit(f"{name}: WARMUP_POD_NAME {env['WARMUP_POD_NAME']}")
    replicas = sts["spec"].get("replicas", 1)
    pods = [f"{name}-{i}" for i in range(replicas)]
    roles = [d for d in docs if d.get("kind") == "Role" and d["metadata"]["name"] == f"{name}-warmup-cpu-boost"]
    want = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], "resourceNames": pods},
            {"apiGroups": [""], "resources": ["pods/resize"], "verbs": ["patch"], "resourceNames": pods}]
    if len(roles) != 1 or roles[0]["rules"] != want:
        sys.exit(f"{name}: Role {roles}, want rules {want}")
    rbs = [d for d in docs if d.get("kind") == "RoleBinding" and d["roleRef"]["name"] == roles[0]["metadata"]["name"]]
    if len(rbs) != 1 or rbs[0]["subjects"] != [{"kind": "ServiceAccount", "name": sa, "namespace": roles[0]["metadata"]["namespace"]}]:
        sys.exit(f"{name}: RoleBinding {rbs}, want its subject the pod's ServiceAccount {sa}")
    sas = [d for d in docs if d.get("kind") == "ServiceAccount" and d["metadata"]["name"] == sa]
    if len(sas) != 1 or sas[0].get("automountServiceAccountToken") is not False:
        sys.exit(f"{name}: ServiceAccount {sa}: {sas}")
    ns = roles[0]["metadata"]["namespace"]
    policy = f"{ns}.{name}-warmup-cpu-boost"
    vaps = [d for d in docs if d.get("kind") == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == policy]
    user = f"request.userInfo.username == 'system:serviceaccount:{ns}:{sa}'"
    if len(vaps) != 1 or vaps[0]["spec"]["failurePolicy"] != "Fail" or \
            vaps[0]["spec"]["matchConstraints"]["resourceRules"][0]["resources"] != ["pods/resize"] or \
            user not in [c["expression"] for c in vaps[0]["spec"]["matchConditions"]]:
        sys.exit(f"{name}: ValidatingAdmissionPolicy {policy}: {vaps}")
    binds = [d for d in docs if d.get("kind") == "ValidatingAdmissionPolicyBinding" and d["spec"]["policyName"] == policy]
    if len(binds) != 1 or binds[0]["spec"]["validationActions"] != ["Deny"] or \
            binds[0]["spec"]["matchResources"]["namespaceSelector"]["matchLabels"] != {"kubernetes.io/metadata.name": ns}:
        sys.exit(f"{name}: ValidatingAdmissionPolicyBinding of {policy}: {binds}")
    print(f"{name}: limit {limit}, ServiceAccount {sa}, Role on {pods}, policy {policy}")
EOF
}

# ---- helm: Helm 4 as helm, Helm 3 as helm3 (scripts/install-tools.sh) -----------------------
helm_versions() {
	local v4 v3
	v4="$(helm version --template '{{.Version}}')" && v3="$(helm3 version --template '{{.Version}}')" || return 1
	echo "helm $v4, helm3 $v3"
	[[ $v4 =~ ^v4\.[0-9]+\.[0-9]+$ && $v3 =~ ^v3\.[0-9]+\.[0-9]+$ ]]
}
check "helm is Helm 4 and helm3 Helm 3, each stamped with its release (helm version)" helm_versions

# ---- Dockerfile ------------------------------------------------------------------------
check "hadolint Dockerfile (.hadolint.yaml, failure-threshold style)" hadolint Dockerfile

# ---- hand-written YAML -----------------------------------------------------------------
check "yamllint chart Chart.yaml/values.yaml, example chart, lint configs, Helm plugin" \
	yamllint --strict -c .yamllint.yaml \
	"$CHART/Chart.yaml" "$CHART/values.yaml" "$UMBRELLA/Chart.yaml" "$UMBRELLA/values.yaml" \
	.hadolint.yaml .yamllint.yaml helm-plugin/warmup-inject/plugin.yaml

same_version() {
	local app tag
	app="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$CHART/Chart.yaml")"
	tag="$(sed -n 's/^  tag: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$CHART/values.yaml")"
	echo "appVersion=$app image.tag=$tag"
	[[ -n "$app" && "$app" == "$tag" ]]
}
check "values image.tag equals Chart.yaml appVersion" same_version

# ---- dashboard ---------------------------------------------------------------------------
DASHBOARD="$CHART/dashboards/pinot-broker-warmup.json"
# Every expr, with Grafana's variables replaced as a single scraped sidecar would see them,
# must parse as PromQL (promtool checks recording rules built from them).
dashboard_promql() {
	python3 - "$DASHBOARD" >"$WORK/dashboard-rules.yaml" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
if not exprs:
    sys.exit("no expr in the dashboard")
subst = {"$namespace": ".*", "$pod": ".*", "$__rate_interval": "1m", "$__range": "1h"}
print("groups:\n  - name: dashboard\n    rules:")
for i, e in enumerate(exprs):
    for k, v in subst.items():
        e = e.replace(k, v)
    print(f"      - record: dashboard:expr{i}\n        expr: {json.dumps(e)}")
EOF
	cat "$WORK/dashboard-rules.yaml"
	promtool check rules "$WORK/dashboard-rules.yaml"
}
check "dashboard JSON parses and every expr is valid PromQL (promtool)" dashboard_promql

# ---- chart: lint and template every variant ---------------------------------------------
write_variants() {
	mkdir -p "$WORK/values"
	: >"$WORK/values/disabled.yaml"
	printf 'enabled: true\n' >"$WORK/values/enabled.yaml"
	printf 'enabled: true\nnativeSidecar: true\n' >"$WORK/values/native.yaml"
	cat >"$WORK/values/auth.yaml" <<'EOF'
enabled: true
auth:
  existingSecret: pinot-warmup-auth
loopbackListener:
  enabled: true
podMonitor:
  labels:
    release: kube-prometheus-stack
EOF
	printf 'enabled: true\nbrokerJvm:\n  c1Only: true\n' >"$WORK/values/c1.yaml"
	# An umbrella chart names the cache key itself (only warmup-inject sees the broker image).
	cat >"$WORK/values/aot.yaml" <<'EOF'
enabled: true
brokerJvm:
  aotCache:
    enabled: true
    key: apachepinot-pinot-1.6.0
    volume:
      persistentVolumeClaim:
        claimName: pinot-broker-aot
EOF
	# The umbrella chart fills target, statefulSetName and maxReplicas from its own broker
	# (umbrella-extra-boost.yaml gives that broker a CPU limit).
	printf 'enabled: true\nbrokerCpuBoost:\n  enabled: true\n  cpu:\n    limit: "4"\n' >"$WORK/values/boost.yaml"
	printf 'broker:\n  replicas: 2\n  resources:\n    requests: {cpu: "1", memory: 1.25Gi}\n    limits: {cpu: "2"}\n' \
		>"$WORK/values/umbrella-extra-boost.yaml"
	# brokerReadiness.decidedBy set either way, and auto (the default) on a broker with a CPU limit
	# and no boost (umbrella-extra-limit.yaml gives the umbrella's broker one).
	printf 'enabled: true\nbrokerReadiness:\n  decidedBy: sidecar\n' >"$WORK/values/gate.yaml"
	printf 'enabled: true\nbrokerReadiness:\n  decidedBy: chart\n' >"$WORK/values/chart.yaml"
	printf 'enabled: true\n' >"$WORK/values/limit.yaml"
	printf 'broker:\n  resources:\n    requests: {cpu: "1", memory: 1.25Gi}\n    limits: {cpu: "2"}\n' \
		>"$WORK/values/umbrella-extra-limit.yaml"
}
write_variants
VARIANTS=(disabled enabled native auth c1 aot boost gate chart limit)

# The example umbrella chart renders the broker StatefulSet with the sidecar from the named
# templates: the only way to see the container itself through `helm template`.
UMB="$WORK/umbrella"
cp -r "$UMBRELLA" "$UMB"
mkdir -p "$UMB/charts"
cp -r "$CHART" "$UMB/charts/"

umbrella_values() { # nests a variant under the dependency's key
	{
		echo "pinot-broker-warmup:"
		sed 's/^/  /' "$WORK/values/$1.yaml"
		echo "  warmup:"
		echo "    brokerPort: 8099"
		echo "    controllerUrl: http://pinot-controller:9000"
		if [[ -f "$WORK/values/umbrella-extra-$1.yaml" ]]; then cat "$WORK/values/umbrella-extra-$1.yaml"; fi
	} >"$WORK/values/umbrella-$1.yaml"
}

for v in "${VARIANTS[@]}"; do
	umbrella_values "$v"
	versions=("${KUBE_VERSIONS[@]}")
	[[ $v == boost ]] && versions=("${BOOST_KUBE_VERSIONS[@]}")
	for k in "${versions[@]}"; do
		check "helm lint --strict $CHART [$v] kube $k" \
			helm lint --strict "$CHART" --kube-version "$k" -f "$WORK/values/$v.yaml"
		check "helm lint --strict umbrella example [$v] kube $k" \
			helm lint --strict "$UMB" --kube-version "$k" -f "$WORK/values/umbrella-$v.yaml"
		out="$WORK/chart-$v-$k.yaml"
		check "helm template $CHART [$v] kube $k" \
			bash -c 'helm template warmup "$1" --namespace pinot --kube-version "$2" -f "$3" >"$4"' _ \
			"$CHART" "$k" "$WORK/values/$v.yaml" "$out"
		check "kubernetes-validate --strict chart [$v] at $k" validate "$out" "$k"
		uout="$WORK/umbrella-$v-$k.yaml"
		check "helm template umbrella example [$v] kube $k" \
			bash -c 'helm template pinot "$1" --namespace pinot --kube-version "$2" -f "$3" >"$4"' _ \
			"$UMB" "$k" "$WORK/values/umbrella-$v.yaml" "$uout"
		check "kubernetes-validate --strict umbrella example [$v] at $k" validate "$uout" "$k"
	done
done

check "disabled chart renders no object" bash -c '[[ $(grep -c "^kind:" "$1") == 0 ]]' _ "$WORK/chart-disabled-1.29.0.yaml"
check "enabled chart renders the PodMonitor and the dashboard ConfigMap" bash -c \
	'grep -q "^kind: PodMonitor" "$1" && grep -q "grafana_dashboard: \"1\"" "$1"' _ "$WORK/chart-enabled-1.29.0.yaml"
check "umbrella [enabled]: the sidecar once in containers, no startupProbe" \
	sidecar_in "$WORK/umbrella-enabled-1.29.0.yaml" containers
check "umbrella [native]: the sidecar once in initContainers, restartPolicy Always, no startupProbe" \
	sidecar_in "$WORK/umbrella-native-1.29.0.yaml" initContainers
check "umbrella [c1]: -XX:TieredStopAtLevel=1 once in the broker's JAVA_OPTS" \
	c1_in "$WORK/umbrella-c1-1.29.0.yaml" 1
check "umbrella [enabled]: -XX:TieredStopAtLevel=1 nowhere (c1Only defaults to false)" \
	c1_in "$WORK/umbrella-enabled-1.29.0.yaml" 0
check "umbrella [aot]: -XX:AOTCache and the AOT log once in the broker's JAVA_OPTS, volumes mounted, the sidecar told" \
	aot_in "$WORK/umbrella-aot-1.29.0.yaml" use
check "umbrella [enabled]: no AOT option, volume or mount (aotCache defaults to off)" \
	aot_in "$WORK/umbrella-enabled-1.29.0.yaml" off
must_fail "umbrella refuses brokerJvm.aotCache without a key (it cannot see the broker image)" \
	helm template pinot "$UMB" --kube-version 1.29.0 -f "$WORK/values/umbrella-aot.yaml" \
	--set pinot-broker-warmup.brokerJvm.aotCache.key=
must_fail "umbrella refuses brokerJvm.aotCache without a volume" \
	helm template pinot "$UMB" --kube-version 1.29.0 -f "$WORK/values/umbrella-aot.yaml" \
	--set pinot-broker-warmup.brokerJvm.aotCache.volume=null
check "umbrella [boost]: the broker's CPU limit 4, resized in place, its own ServiceAccount, the Role on its 2 pods" \
	boost_in "$WORK/umbrella-boost-1.34.0.yaml" 4
check "umbrella [enabled]: no boost (brokerCpuBoost defaults to off)" \
	bash -c '! grep -qE "resizePolicy|warmup-cpu-boost|warmup-kube-api|WARMUP_CPU_BOOST" "$1"' _ "$WORK/umbrella-enabled-1.34.0.yaml"
must_fail "umbrella refuses brokerCpuBoost.cpu.limit for a broker without a CPU limit" \
	helm template pinot "$UMB" --kube-version 1.34.0 -f "$WORK/values/umbrella-boost.yaml" --set 'broker.resources.limits=null'
must_fail "umbrella refuses a boost at the broker's limit" \
	helm template pinot "$UMB" --kube-version 1.34.0 -f "$WORK/values/umbrella-boost.yaml" --set-string pinot-broker-warmup.brokerCpuBoost.cpu.limit=2000m
cat >"$WORK/values/umbrella-boost-guaranteed.yaml" <<'EOF'
broker:
  resources:
    requests: {cpu: "2", memory: 2Gi}
    limits: {cpu: "2", memory: 2Gi}
pinot-broker-warmup:
  resources:
    requests: {cpu: 50m, memory: 64Mi}
    limits: {cpu: 50m, memory: 64Mi}
EOF
must_fail "umbrella refuses a limit-only boost of a Guaranteed pod (the give-back would change its QoS class)" \
	helm template pinot "$UMB" --kube-version 1.34.0 -f "$WORK/values/umbrella-boost.yaml" -f "$WORK/values/umbrella-boost-guaranteed.yaml"
check "umbrella accepts a Guaranteed pod's request and limit boosted together" \
	helm template pinot "$UMB" --kube-version 1.34.0 -f "$WORK/values/umbrella-boost.yaml" -f "$WORK/values/umbrella-boost-guaranteed.yaml" \
	--set-string pinot-broker-warmup.brokerCpuBoost.cpu.request=4
must_fail "umbrella refuses it with the memory limit written another way (2048Mi for the request's 2Gi: one amount)" \
	helm template pinot "$UMB" --kube-version 1.34.0 -f "$WORK/values/umbrella-boost.yaml" -f "$WORK/values/umbrella-boost-guaranteed.yaml" \
	--set-string broker.resources.limits.memory=2048Mi
must_fail "native sidecar refused below Kubernetes 1.29" \
	helm template pinot "$UMB" --kube-version 1.28.0 -f "$WORK/values/umbrella-native.yaml"
must_fail "umbrella refuses brokerCpuBoost below Kubernetes 1.33 (no in-place resize)" \
	helm template pinot "$UMB" --kube-version 1.32.0 -f "$WORK/values/umbrella-boost.yaml"
must_fail "umbrella refuses binding the resize right to the default ServiceAccount" \
	helm template pinot "$UMB" --kube-version 1.34.0 -f "$WORK/values/umbrella-boost.yaml" \
	--set pinot-broker-warmup.brokerCpuBoost.serviceAccount.create=false --set pinot-broker-warmup.brokerCpuBoost.serviceAccount.name=default
# Without --kube-version Helm assumes the Kubernetes its client-go is (Helm 3: stamped at build,
# else 1.20, which native mode refuses).
for h in helm helm3; do
	check "$h template umbrella [native] without --kube-version: accepted (the default Kubernetes is >= 1.29)" \
		"$h" template pinot "$UMB" -f "$WORK/values/umbrella-native.yaml"
done

# ---- schema: wrong types and out-of-range values must fail -----------------------------
BAD_VALUES=(
	enabled=yes
	warmup.enabled=maybe
	warmup.concurrency=0
	warmup.concurrency=65
	warmup.concurrency=two
	warmup.minIterations=-1
	warmup.maxTables=0
	warmup.budget=0s
	warmup.budget=15
	warmup.probeTimeout=soon
	warmup.listenPort=0
	warmup.listenPort=70000
	warmup.brokerPort=http
	warmup.brokerUrl=localhost:8099
	warmup.logLevel=trace
	warmup.logFormat=xml
	warmup.exit=latency
	warmup.convergeTolerance=0
	warmup.convergeTolerance=2
	warmup.convergeWindows=0
	warmup.maxProbeRate=-1
	warmup.maxProbeRate=fast
	warmup.jvmMetricsUrl=localhost:8008
	'warmup.tables[0]=a,b'
	'warmup.queries[0]=SELECT 1; SELECT 2'
	warmup.budgetMs=15000
	image.pullPolicy=Sometimes
	image.digest=latest
	nativeSidecar=1
	auth.existingSecret=Not_A_Name
	loopbackListener.port=99999
	loopbackListener.name=http
	'extraEnv[0].name=WARMUP_BUDGET'
	podMonitor.interval=often
	dashboard.namespace=Bad_NS
	readinessProbe.periodSeconds=0
	brokerJvm.c1Only=yes
	brokerJvm.javaOptsEnv=JAVA-OPTS
	brokerJvm.tieredStopAtLevel=1
	brokerJvm.aotCache.mode=write
	brokerJvm.aotCache.key=a/b
	brokerJvm.aotCache.enabled=yes
	brokerCpuBoost.enabled=yes
	brokerCpuBoost.cpu.limit=4Gi
	brokerCpuBoost.cpu.request=-1
	brokerCpuBoost.maxDuration=0s
	brokerCpuBoost.settle=soon
	brokerCpuBoost.maxReplicas=-1
	brokerCpuBoost.statefulSetName=Bad_Name
	brokerCpuBoost.serviceAccount.create=maybe
)
for bad in "${BAD_VALUES[@]}"; do
	must_fail "schema rejects $bad (helm template)" \
		helm template warmup "$CHART" --kube-version 1.29.0 --set enabled=true --set "$bad"
	must_fail "schema rejects $bad (helm lint)" \
		helm lint --strict "$CHART" --kube-version 1.29.0 --set enabled=true --set "$bad"
done
must_fail "container template refuses no controller, tables or queries" \
	helm template pinot "$UMB" --kube-version 1.29.0 --set pinot-broker-warmup.warmup.controllerUrl=

# ---- the static binary, built by the Dockerfile's own command ---------------------------
BIN="$WORK/out/warmup-sidecar"
VERSION="0.0.0-check"
build_like_dockerfile() {
	scripts/image-binary.sh linux "$(go env GOARCH)" "$VERSION" "$WORK/out"
}
check "go build exactly as the Dockerfile (CGO_ENABLED=0, -trimpath, ldflags version)" build_like_dockerfile
check "binary is statically linked (ldd: not a dynamic executable)" \
	bash -c '! ldd "$1" >/dev/null 2>&1 && ! readelf -l "$1" | grep -q INTERP' _ "$BIN"
check "binary reports the stamped version" bash -c '"$1" version | grep -qF "$2"' _ "$BIN" "$VERSION"
[[ -x "$BIN" ]] && printf 'INFO  binary size: %s bytes\n' "$(stat -c %s "$BIN")"
# The sidecar ships in every broker pod; the post-renderer (warmup-inject) runs on an operator's
# machine. Helm, Sprig, JSON Schema and client-go belong to the second only.
no_helm() {
	local deps
	deps="$(go list -deps ./cmd/warmup-sidecar)" || return 1
	! grep -E '^(k8s\.io/|helm\.sh/|github\.com/Masterminds/sprig|github\.com/santhosh-tekuri/jsonschema)' <<<"$deps"
}
check "sidecar links no Helm, Sprig, JSON Schema or client-go (go list -deps)" no_helm
MAX_SIDECAR_BYTES=11000000
check "sidecar binary (stripped, static) is at most 11 MB" \
	bash -c 'size=$(stat -c %s "$1") && echo "$size bytes" && ((size <= $2))' _ "$BIN" "$MAX_SIDECAR_BYTES"

# ---- warmup-inject, the post-renderer, on the official chart's real output ---------------
INJECT="$WORK/out/warmup-inject"
check "go build ./cmd/warmup-inject" go build -o "$INJECT" ./cmd/warmup-inject
printf 'nativeSidecar: true\nauth:\n  existingSecret: pinot-warmup-auth\nloopbackListener:\n  enabled: true\n' \
	>"$WORK/values/inject-native.yaml"
for f in default customized; do
	# Native-sidecar mode needs the cluster's version (a post-renderer cannot ask for it).
	for args in "" "--values=$WORK/values/inject-native.yaml --kube-version=1.29.0"; do
		label="$f.yaml${args:+ (native, auth, loopback listener)}"
		out="$WORK/inject-$f${args:+-native}.yaml"
		# shellcheck disable=SC2086 # $args is zero or two words
		check "warmup-inject $label" bash -c '"$1" $2 <"$3" >"$4"' _ "$INJECT" "$args" "$FIXTURES/$f.yaml" "$out"
		list=containers
		[[ -n "$args" ]] && list=initContainers
		check "inject $label: one sidecar per broker StatefulSet, in $list" sidecar_in "$out" "$list"
		for k in "${KUBE_VERSIONS[@]}"; do
			check "kubernetes-validate --strict inject $label at $k" validate "$out" "$k"
		done
		check "inject $label twice equals once" bash -c \
			'[[ -s "$3" ]] && "$1" $2 <"$3" 2>/dev/null | cmp -s - "$3"' _ "$INJECT" "$args" "$out"
	done
done
# brokerJvm.c1Only: the flag lands once in the broker's JAVA_OPTS and in no other component's.
printf 'brokerJvm:\n  c1Only: true\n' >"$WORK/values/inject-c1.yaml"
for f in default customized; do
	out="$WORK/inject-$f-c1.yaml"
	check "warmup-inject $f.yaml (brokerJvm.c1Only)" bash -c '"$1" --values="$2" <"$3" >"$4"' _ \
		"$INJECT" "$WORK/values/inject-c1.yaml" "$FIXTURES/$f.yaml" "$out"
	check "inject $f.yaml (c1Only): -XX:TieredStopAtLevel=1 once in the broker's JAVA_OPTS, never elsewhere" c1_in "$out" 1
	check "inject $f.yaml (c1Only off): -XX:TieredStopAtLevel=1 nowhere" c1_in "$WORK/inject-$f.yaml" 0
	for k in "${KUBE_VERSIONS[@]}"; do
		check "kubernetes-validate --strict inject $f.yaml (c1Only) at $k" validate "$out" "$k"
	done
	check "inject $f.yaml (c1Only) twice equals once" bash -c \
		'[[ -s "$3" ]] && "$1" --values="$2" <"$3" 2>/dev/null | cmp -s - "$3"' _ "$INJECT" "$WORK/values/inject-c1.yaml" "$out"
done
# brokerJvm.aotCache: use and train, the key derived from the broker image.
printf 'brokerJvm:\n  aotCache:\n    enabled: true\n    volume:\n      persistentVolumeClaim:\n        claimName: pinot-broker-aot\n' \
	>"$WORK/values/inject-aot-use.yaml"
{ cat "$WORK/values/inject-aot-use.yaml"; printf '    mode: train\n'; } >"$WORK/values/inject-aot-train.yaml"
for f in default customized; do
	check "inject $f.yaml (aotCache off): no AOT option, volume or mount" aot_in "$WORK/inject-$f.yaml" off
	for mode in use train; do
		out="$WORK/inject-$f-aot-$mode.yaml"
		check "warmup-inject $f.yaml (brokerJvm.aotCache, $mode)" bash -c '"$1" --values="$2" <"$3" >"$4"' _ \
			"$INJECT" "$WORK/values/inject-aot-$mode.yaml" "$FIXTURES/$f.yaml" "$out"
		check "inject $f.yaml (aotCache $mode): the options once in the broker's JAVA_OPTS, volumes mounted, the sidecar told" \
			aot_in "$out" "$mode"
		for k in "${KUBE_VERSIONS[@]}"; do
			check "kubernetes-validate --strict inject $f.yaml (aotCache $mode) at $k" validate "$out" "$k"
		done
		check "inject $f.yaml (aotCache $mode) twice equals once" bash -c \
			'[[ -s "$3" ]] && "$1" --values="$2" <"$3" 2>/dev/null | cmp -s - "$3"' _ "$INJECT" "$WORK/values/inject-aot-$mode.yaml" "$out"
	done
done
# brokerCpuBoost: on the official chart rendered with a broker CPU request 1 and limit 2.
printf 'brokerCpuBoost:\n  enabled: true\n  cpu:\n    limit: "4"\n' >"$WORK/values/inject-boost.yaml"
out="$WORK/inject-cpu-limits-boost.yaml"
# The boost needs the cluster's version (in-place resize: 1.33), which a post-renderer cannot ask.
check "warmup-inject cpu-limits.yaml (brokerCpuBoost)" bash -c '"$1" --values="$2" --kube-version="$5" <"$3" >"$4"' _ \
	"$INJECT" "$WORK/values/inject-boost.yaml" "$FIXTURES/cpu-limits.yaml" "$out" "${BOOST_KUBE_VERSIONS[0]}"
check "inject cpu-limits.yaml (brokerCpuBoost): the broker's CPU limit 4, resized in place, its own ServiceAccount, the Role on its pod, the policy" \
	boost_in "$out" 4
for k in "${BOOST_KUBE_VERSIONS[@]}"; do
	check "kubernetes-validate --strict inject cpu-limits.yaml (brokerCpuBoost) at $k" validate "$out" "$k"
done
check "inject cpu-limits.yaml (brokerCpuBoost) twice equals once" bash -c \
	'[[ -s "$3" ]] && "$1" --values="$2" --kube-version="$4" <"$3" 2>/dev/null | cmp -s - "$3"' _ "$INJECT" "$WORK/values/inject-boost.yaml" "$out" "${BOOST_KUBE_VERSIONS[0]}"
check "inject picks up broker port 8199 from customized.yaml" \
	grep -q 'value: "http://127.0.0.1:8199"' "$WORK/inject-customized.yaml"
# Helm 3 (helm3) runs warmup-inject from PATH as its exec post-renderer, as the README tells
# operators to: a stand-in chart whose one template is the official chart's rendered output.
OFFICIAL="$WORK/official-pinot"
mkdir -p "$OFFICIAL/templates"
printf 'apiVersion: v2\nname: pinot\nversion: 0.0.0\n' >"$OFFICIAL/Chart.yaml"
cp "$FIXTURES/default.yaml" "$OFFICIAL/templates/all.yaml"
check "helm3 template --post-renderer warmup-inject --post-renderer-args --values=... --kube-version=..." bash -c \
	'PATH="$(dirname "$1"):$PATH" helm3 template pinot "$2" --post-renderer warmup-inject \
		--post-renderer-args --values="$3" --post-renderer-args --kube-version=1.29.0 >"$4"' _ \
	"$INJECT" "$OFFICIAL" "$WORK/values/inject-native.yaml" "$WORK/helm-post-rendered.yaml"
check "helm3 post-rendered: one sidecar per broker StatefulSet, in initContainers" \
	sidecar_in "$WORK/helm-post-rendered.yaml" initContainers
# What the operator sees when native mode has no version: helm fails and shows warmup-inject's line.
helm_native_without_version() {
	local out
	if out="$(PATH="$(dirname "$INJECT"):$PATH" helm3 template pinot "$OFFICIAL" --post-renderer warmup-inject \
		--post-renderer-args --values="$WORK/values/inject-native.yaml" 2>&1)"; then
		echo "helm template succeeded"
		return 1
	fi
	echo "$out"
	grep -q -- "--kube-version" <<<"$out"
}
check "helm3 --post-renderer warmup-inject, nativeSidecar without --kube-version: fails naming --kube-version" \
	helm_native_without_version

# Helm 4 (helm) runs post-renderers only as plugins: the plugin `make helm-plugin` builds,
# installed as the README says into a Helm home of its own (never the user's), then the official
# chart (the .tgz) rendered through it with the same values. Helm 4.3.2 installs a local plugin
# under $HELM_DATA_HOME/plugins whatever HELM_PLUGINS says (helm/helm#32646): both point there.
PLUGIN_SRC="$WORK/helm-plugin/warmup-inject"
helm4() {
	HELM_DATA_HOME="$WORK/helm4/data" HELM_PLUGINS="$WORK/helm4/data/plugins" \
		HELM_CONFIG_HOME="$WORK/helm4/config" HELM_CACHE_HOME="$WORK/helm4/cache" helm "$@"
}
check "scripts/helm-plugin.sh builds the Helm 4 plugin directory" scripts/helm-plugin.sh "$PLUGIN_SRC"
plugin_installed() {
	helm4 plugin install "$PLUGIN_SRC" && helm4 plugin list | tee /dev/stderr |
		grep -qE '^warmup-inject[[:space:]]+[0-9.]+[[:space:]]+postrenderer/v1[[:space:]]'
}
check "helm plugin install (Helm 4, the local directory, no --verify): warmup-inject, postrenderer/v1" plugin_installed
helm4_post_rendered() {
	helm4 template pinot "$FIXTURES/pinot-chart-release-1.5.1.tgz" --namespace pinot --kube-version 1.29.0 \
		--set zookeeper.enabled=false --post-renderer warmup-inject \
		--post-renderer-args --values="$WORK/values/inject-native.yaml" \
		--post-renderer-args --kube-version=1.29.0 >"$WORK/helm4-post-rendered.yaml"
}
check "helm template (Helm 4) official chart --post-renderer warmup-inject --post-renderer-args --values=... --kube-version=..." \
	helm4_post_rendered
check "helm (Helm 4) plugin post-rendered: one sidecar per broker StatefulSet, in initContainers" \
	sidecar_in "$WORK/helm4-post-rendered.yaml" initContainers
check "kubernetes-validate --strict helm (Helm 4) plugin post-rendered at 1.34.0" validate "$WORK/helm4-post-rendered.yaml" 1.34.0
# Helm 4 stops when the plugin fails, but shows none of its stderr: the error names the plugin only.
helm4_native_without_version() {
	local out
	if out="$(helm4 template pinot "$FIXTURES/pinot-chart-release-1.5.1.tgz" --kube-version 1.29.0 \
		--set zookeeper.enabled=false --post-renderer warmup-inject \
		--post-renderer-args --values="$WORK/values/inject-native.yaml" 2>&1)"; then
		echo "helm template succeeded"
		return 1
	fi
	echo "$out"
	grep -qF 'plugin "warmup-inject" exited with error' <<<"$out"
}
check "helm (Helm 4) --post-renderer warmup-inject, nativeSidecar without --kube-version: the plugin fails, helm stops" \
	helm4_native_without_version

# ---- The values route: the official chart's own values, on Helm 4, as the README gives it -----
values_route() { # WARMUP-VALUES OUT-PREFIX
	helm template pinot "$FIXTURES/pinot-chart-release-1.5.1.tgz" --namespace pinot --kube-version 1.34.0 |
		"$INJECT" values -f "$1" --kube-version 1.34.0 --companion "$2-companion.yaml" >"$2-values.yaml" &&
		helm template pinot "$FIXTURES/pinot-chart-release-1.5.1.tgz" --namespace pinot --kube-version 1.34.0 \
			-f "$2-values.yaml" >"$2-rendered.yaml" &&
		helm template pinot-warmup "$CHART" --namespace pinot --kube-version 1.34.0 -f "$2-companion.yaml" >"$2-companion-rendered.yaml"
}
printf 'brokerReadiness: {decidedBy: sidecar}\npodMonitor: {enabled: true}\n' >"$WORK/values/route-gate.yaml"
check "helm template | warmup-inject values | helm template -f (Helm 4): the official chart with the values route" \
	values_route "$WORK/values/route-gate.yaml" "$WORK/route-gate"
check "values route (Helm 4): one sidecar per broker StatefulSet, in initContainers" \
	sidecar_in "$WORK/route-gate-rendered.yaml" initContainers
check "kubernetes-validate --strict values route (Helm 4) at 1.34.0" validate "$WORK/route-gate-rendered.yaml" 1.34.0
check "yamllint the values route's two files" yamllint -d relaxed "$WORK/route-gate-values.yaml" "$WORK/route-gate-companion.yaml"
check "values route companion (Helm 4): the PodMonitor for the release's broker pods" \
	grep -q 'release: pinot' "$WORK/route-gate-companion-rendered.yaml"
check "go test ./internal/inject -run 'ValuesRoute|GitOps' with Helm 4 required (docs/gitops rendered through the helm CLI)" \
	env WARMUP_REQUIRE_HELM4=1 go test -count=1 -run 'ValuesRoute|GitOps' ./internal/inject/

# ---- warmup-inject on the official chart rendered live with values that once fooled it -------
# (issue 34). Each rendering must equal its copy in testdata/pinot-helm (cmd/warmup-inject's
# tests run the built binary on those copies; the README there gives each command), then the
# binary runs on the live one.
PINOT_TGZ="$FIXTURES/pinot-chart-release-1.5.1.tgz"
# The copies are Helm 3's renderings, byte for byte. Helm 4 keeps the blank lines at the end of
# templates: its rendering must be the copy plus whitespace-only lines, nothing else.
only_blank_lines_added() { # HELM4 COPY
	local d
	d="$(diff "$1" "$2")"
	if grep -qE '^>|^< .*[^[:space:]]' <<<"$d"; then
		echo "$d"
		return 1
	fi
}
render_official() { # NAME SET...: helm template of the official chart with --set SET...
	local name=$1 s
	shift
	local args=()
	for s in "$@"; do args+=(--set "$s"); done
	helm3 template pinot "$PINOT_TGZ" --namespace pinot --kube-version 1.29.0 \
		--set zookeeper.enabled=false "${args[@]}" >"$WORK/official-$name.yaml" || return 1
	cmp "$WORK/official-$name.yaml" "$FIXTURES/$name.yaml" || return 1
	helm template pinot "$PINOT_TGZ" --namespace pinot --kube-version 1.29.0 \
		--set zookeeper.enabled=false "${args[@]}" >"$WORK/official-$name-helm4.yaml" || return 1
	only_blank_lines_added "$WORK/official-$name-helm4.yaml" "$FIXTURES/$name.yaml"
}
check "official chart rendered live (helm3; helm: blank lines added only), default values: equals testdata default.yaml" render_official default
check "official chart, broker.extraEnv JAVA_OPTS (literal): equals testdata" render_official extraenv-javaopts \
	'broker.extraEnv[0].name=JAVA_OPTS' 'broker.extraEnv[0].value=-Xms2G -Xmx2G -XX:+UseG1GC -Dplugins.dir=/opt/pinot/plugins'
check "official chart, broker.extraEnv JAVA_OPTS (valueFrom): equals testdata" render_official extraenv-javaopts-valuefrom \
	'broker.extraEnv[0].name=JAVA_OPTS' 'broker.extraEnv[0].valueFrom.configMapKeyRef.name=pinot-broker-jvm' \
	'broker.extraEnv[0].valueFrom.configMapKeyRef.key=JAVA_OPTS'
check "official chart, broker.resources with a CPU request and limit: equals testdata" render_official cpu-limits \
	broker.resources.requests.cpu=1 broker.resources.limits.cpu=2
check "official chart, nameOverride and broker.name renamed: equals testdata" render_official renamed \
	nameOverride=analytics broker.name=query
check "official chart, no port named broker, no probes, two ports: equals testdata" render_official unnamed-port \
	broker.service.name=query broker.probes.livenessEnabled=false broker.probes.readinessEnabled=false \
	'broker.service.extraPorts[0].name=https' 'broker.service.extraPorts[0].containerPort=8443' \
	'broker.service.extraPorts[0].protocol=TCP'

# inject_fails NAME WORD... -- ARG...: warmup-inject ARG... on $WORK/official-NAME.yaml fails,
# writes nothing to stdout and names every WORD on stderr.
inject_fails() {
	local name=$1 words=() rc=0 w
	shift
	while [[ $# -gt 0 && $1 != -- ]]; do
		words+=("$1")
		shift
	done
	shift
	"$INJECT" "$@" <"$WORK/official-$name.yaml" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
	cat "$WORK/stderr"
	if [[ $rc -eq 0 || -s "$WORK/stdout" ]]; then
		echo "exit $rc, $(wc -c <"$WORK/stdout") bytes on stdout; want a failure and nothing"
		return 1
	fi
	for w in "${words[@]}"; do
		grep -qF -- "$w" "$WORK/stderr" || {
			echo "stderr lacks: $w"
			return 1
		}
	done
}

# javaopts_last IN OUT OPT...: in the broker container, every JAVA_OPTS entry but the last is as
# IN has it, and the last (the one the kubelet uses) is IN's plus the OPTs, once.
javaopts_last() {
	"$PYTHON" - "$@" <<'EOF'
import sys, yaml
src, dst, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
def entries(path):
    for d in yaml.safe_load_all(open(path)):
        if d and d.get("kind") == "StatefulSet":
            for c in d["spec"]["template"]["spec"]["containers"]:
                if c["name"] == "broker":
                    return [e for e in c.get("env") or [] if e["name"] == "JAVA_OPTS"]
    sys.exit("no broker container in " + path)
before, after = entries(src), entries(dst)
if len(before) < 2 or len(after) != len(before):
    sys.exit(f"JAVA_OPTS entries: {len(before)} before, {len(after)} after")
if after[:-1] != before[:-1]:
    sys.exit(f"a shadowed JAVA_OPTS changed: {after[:-1]}")
want = " ".join([before[-1]["value"]] + opts)
if after[-1].get("value") != want:
    sys.exit(f"last JAVA_OPTS {after[-1].get('value')!r}, want {want!r}")
print(f"last JAVA_OPTS: {want}")
EOF
}
AOT_OPTS=(-XX:AOTCache=/var/lib/pinot-aot/apachepinot-pinot-latest.aot -Xlog:aot=info,cds=info:file=/var/log/pinot-aot/aot.log)
for lever in c1 aot-use; do
	out="$WORK/inject-extraenv-$lever.yaml"
	check "warmup-inject extraenv-javaopts ($lever)" bash -c '"$1" --values="$2" <"$3" >"$4"' _ \
		"$INJECT" "$WORK/values/inject-$lever.yaml" "$WORK/official-extraenv-javaopts.yaml" "$out"
	opts=(-XX:TieredStopAtLevel=1)
	[[ $lever == aot-use ]] && opts=("${AOT_OPTS[@]}")
	check "inject extraenv-javaopts ($lever): the options in broker.extraEnv's JAVA_OPTS (the last), the chart's untouched" \
		javaopts_last "$WORK/official-extraenv-javaopts.yaml" "$out" "${opts[@]}"
	check "kubernetes-validate --strict inject extraenv-javaopts ($lever) at 1.34.0" validate "$out" 1.34.0
	check "inject valueFrom JAVA_OPTS ($lever): refused, naming broker.extraEnv JAVA_OPTS" inject_fails extraenv-javaopts-valuefrom \
		"StatefulSet pinot-broker" valueFrom broker.extraEnv JAVA_OPTS literal -- --values="$WORK/values/inject-$lever.yaml"
done
check "warmup-inject renamed.yaml (nameOverride, broker.name)" bash -c '"$1" <"$2" >"$3"' _ \
	"$INJECT" "$WORK/official-renamed.yaml" "$WORK/inject-renamed.yaml"
check "inject renamed.yaml: one sidecar in the renamed broker" sidecar_in "$WORK/inject-renamed.yaml" containers
check "inject renamed.yaml: the renamed controller found" \
	grep -q 'value: "http://pinot-analytics-controller:9000"' "$WORK/inject-renamed.yaml"
# The official chart without its broker: its controller and server only.
check "official chart rendered without its broker (--show-only controller, server)" bash -c \
	'helm template pinot "$1" --namespace pinot --kube-version 1.29.0 --set zookeeper.enabled=false \
		--show-only templates/controller/statefulset.yaml --show-only templates/server/statefulset.yaml >"$2"' _ \
	"$PINOT_TGZ" "$WORK/official-nobroker.yaml"
check "inject without a broker: an error naming the labels looked for and the values that set them" inject_fails nobroker \
	"no broker StatefulSet" "app=pinot, component=broker" brokerPodLabels nameOverride broker.name "enabled: false" --
check "inject brokerCpuBoost on the chart's default broker (no CPU): refused, naming broker.resources.limits.cpu" inject_fails default \
	"StatefulSet pinot-broker" "no CPU request or limit" broker.resources.limits.cpu -- --values="$WORK/values/inject-boost.yaml" \
	--kube-version="${BOOST_KUBE_VERSIONS[0]}"
check "inject brokerCpuBoost without --kube-version: refused, naming --kube-version" inject_fails cpu-limits \
	brokerCpuBoost 1.33 --kube-version -- --values="$WORK/values/inject-boost.yaml"
check "inject brokerCpuBoost below Kubernetes 1.33: refused, naming the version" inject_fails cpu-limits \
	"brokerCpuBoost needs Kubernetes >= 1.33" v1.32.0 -- --values="$WORK/values/inject-boost.yaml" --kube-version=v1.32.0
printf 'brokerCpuBoost:\n  enabled: true\n  cpu:\n    limit: "4"\n  serviceAccount:\n    create: true\n    name: pinot\n' >"$WORK/values/inject-boost-sa-pinot.yaml"
check "inject brokerCpuBoost creating a ServiceAccount named as the chart's pinot: refused, naming both" inject_fails cpu-limits \
	"ServiceAccount pinot/pinot" "brokerCpuBoost of StatefulSet pinot-broker" "pinot/templates/serviceaccount.yaml" \
	brokerCpuBoost.serviceAccount.name -- --values="$WORK/values/inject-boost-sa-pinot.yaml" --kube-version="${BOOST_KUBE_VERSIONS[0]}"
printf 'enabled: false\n' >"$WORK/values/inject-off.yaml"
check "inject without a broker, enabled: false: passed through unchanged" bash -c \
	'"$1" --values="$2" <"$3" | cmp - "$3"' _ "$INJECT" "$WORK/values/inject-off.yaml" "$WORK/official-nobroker.yaml"
check "inject unnamed-port.yaml: the query port cannot be told, the error names warmup.brokerUrl" inject_fails unnamed-port \
	"query port" warmup.brokerUrl --
printf 'warmup:\n  brokerUrl: http://127.0.0.1:8099\n' >"$WORK/values/inject-url.yaml"
check "warmup-inject unnamed-port.yaml with warmup.brokerUrl" bash -c '"$1" --values="$2" <"$3" >"$4"' _ \
	"$INJECT" "$WORK/values/inject-url.yaml" "$WORK/official-unnamed-port.yaml" "$WORK/inject-unnamed-port.yaml"
check "inject unnamed-port.yaml with warmup.brokerUrl: one sidecar" sidecar_in "$WORK/inject-unnamed-port.yaml" containers
check "inject unnamed-port.yaml with warmup.brokerUrl: the sidecar probes that URL" \
	grep -q 'value: "http://127.0.0.1:8099"' "$WORK/inject-unnamed-port.yaml"
check "inject nativeSidecar without --kube-version: refused, naming --kube-version" inject_fails default \
	nativeSidecar --kube-version -- --values="$WORK/values/inject-native.yaml"

# ---- brokerReadiness.decidedBy: the gate, not a fixed delay, decides when a pod enters ----------
# With sidecar (or auto, the default, on a broker without a CPU limit or boosted) warmup-inject
# starts the official chart's broker readinessProbe (and startupProbe) at once, every second; the
# umbrella example does the same through pinot-broker-warmup.brokerReadinessProbe. With chart (or
# auto on a broker with a CPU limit and no boost) the probes stay as rendered.
printf 'brokerReadiness:\n  decidedBy: sidecar\n' >"$WORK/values/inject-gate.yaml"
printf 'brokerReadiness:\n  decidedBy: chart\n' >"$WORK/values/inject-chart.yaml"
for f in default customized; do
	out="$WORK/inject-$f-gate.yaml"
	check "warmup-inject $f.yaml (brokerReadiness.decidedBy sidecar)" bash -c '"$1" --values="$2" <"$3" >"$4"' _ \
		"$INJECT" "$WORK/values/inject-gate.yaml" "$FIXTURES/$f.yaml" "$out"
	check "inject $f.yaml (decidedBy sidecar): broker readiness/startup probes from 0 s every 1 s, failures as long as before; liveness as rendered; sidecar probe every 1 s" \
		probes_in "$out" "$FIXTURES/$f.yaml" sidecar
	check "inject $f.yaml (decidedBy auto, the default; no CPU limit): the gate decides, as with sidecar" \
		probes_in "$WORK/inject-$f.yaml" "$FIXTURES/$f.yaml" sidecar
	check "warmup-inject $f.yaml (brokerReadiness.decidedBy chart)" bash -c '"$1" --values="$2" <"$3" >"$4"' _ \
		"$INJECT" "$WORK/values/inject-chart.yaml" "$FIXTURES/$f.yaml" "$WORK/inject-$f-chart.yaml"
	check "inject $f.yaml (decidedBy chart): the broker's probes as rendered, the sidecar's every 5 s" \
		probes_in "$WORK/inject-$f-chart.yaml" "$FIXTURES/$f.yaml" chart
	for k in "${KUBE_VERSIONS[@]}"; do
		check "kubernetes-validate --strict inject $f.yaml (decidedBy sidecar) at $k" validate "$out" "$k"
	done
	check "inject $f.yaml (decidedBy sidecar) twice equals once" bash -c \
		'[[ -s "$3" ]] && "$1" --values="$2" <"$3" 2>/dev/null | cmp -s - "$3"' _ "$INJECT" "$WORK/values/inject-gate.yaml" "$out"
done
check "warmup-inject cpu-limits.yaml (the defaults)" bash -c '"$1" <"$2" >"$3" 2>"$4"' _ \
	"$INJECT" "$FIXTURES/cpu-limits.yaml" "$WORK/inject-cpu-limits.yaml" "$WORK/inject-cpu-limits.stderr"
check "inject cpu-limits.yaml (decidedBy auto; a CPU limit, no boost): the broker's probes as rendered, the sidecar's every 5 s" \
	probes_in "$WORK/inject-cpu-limits.yaml" "$FIXTURES/cpu-limits.yaml" chart
check "inject cpu-limits.yaml (decidedBy auto): stderr says the chart decides, and why" \
	grep -qF 'brokerReadiness.decidedBy auto: chart (the broker has a CPU limit, 2, and brokerCpuBoost is off)' "$WORK/inject-cpu-limits.stderr"
check "inject cpu-limits.yaml (decidedBy auto, brokerCpuBoost): the gate decides" \
	probes_in "$WORK/inject-cpu-limits-boost.yaml" "$FIXTURES/cpu-limits.yaml" sidecar
# The umbrella example's [gate], [chart] and [limit] variants are rendered with the others above.
check "umbrella [gate]: the broker's readinessProbe from 0 s every 1 s, liveness as given, the sidecar's every 1 s" \
	probes_in "$WORK/umbrella-gate-1.29.0.yaml" "$WORK/umbrella-chart-1.29.0.yaml" sidecar
check "umbrella [chart]: the broker's probes as given, the sidecar's every 5 s" \
	probes_in "$WORK/umbrella-chart-1.29.0.yaml" "$WORK/umbrella-chart-1.29.0.yaml" chart
check "umbrella [enabled]: decidedBy auto, the default, with no CPU limit in broker.resources: the gate decides" \
	probes_in "$WORK/umbrella-enabled-1.29.0.yaml" "$WORK/umbrella-chart-1.29.0.yaml" sidecar
check "umbrella [limit]: decidedBy auto with a CPU limit and no boost: the chart decides" \
	probes_in "$WORK/umbrella-limit-1.29.0.yaml" "$WORK/umbrella-chart-1.29.0.yaml" chart
check "umbrella [boost]: decidedBy auto with the boost: the gate decides" \
	probes_in "$WORK/umbrella-boost-1.34.0.yaml" "$WORK/umbrella-chart-1.29.0.yaml" sidecar
for bad in brokerReadiness.decidedBy=warmup brokerReadiness.periodSeconds=0 brokerReadiness.periodSeconds=11 \
	brokerReadiness.initialDelaySeconds=0; do
	must_fail "schema rejects $bad (helm template)" \
		helm template warmup "$CHART" --kube-version 1.29.0 --set enabled=true --set "$bad"
done

# ---- Go tests of the post-renderer (helm on PATH: the helm CLI comparison runs too) ------
check "go test ./internal/inject/... (with helm CLI equivalence)" go test -count=1 ./internal/inject/...

# ---- The documents: every relative link resolves; the README's tables match the code ---------
check "docs: Markdown links resolve; the configuration page's variables, metrics and /status tables match the code; every generated block renders from its JSON" \
	go test -count=1 -run 'TestRepositoryLinksResolve|TestReadme|TestDocs' ./internal/markdown/ ./internal/config/ ./internal/report/ ./e2e/studies/

echo
if ((failed > 0)); then
	printf 'failed checks:\n'
	printf '  %s\n' "${failures[@]}"
fi
echo "check-packaging: $passed passed, $failed failed"
((failed == 0))
