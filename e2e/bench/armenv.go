package bench

import (
	"maps"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// armEnv is an ON arm's WARMUP_* environment: base (the cluster's URLs), the arm's own
// probe setting, then extra; nil for OFF. on_default sets nothing about probes: the sidecar
// derives its own from the tables' schemas and never sees the mix. on_limit1 asks for
// upstream's SELECT * ... LIMIT 1 probe. on_custom hands over one query per shape of the
// mix, joined by ";" (the sidecar's splitter keeps each SET with the query after it).
// on_single_stage keeps the defaults but probes the single-stage engine only. on_baseline is
// on_default run by another build (Config.BaselineSidecar). on_jit is on_default told where
// the broker JVM's metrics are (jvmMetrics, the JMX exporter agent's endpoint), so its exit
// also waits for a quiet JIT compiler. upstream_like is the sidecar set the way Pinot's own
// built-in warmup works (UpstreamLikeEnv). on_c1 and the AOT arms change the broker, not the
// sidecar: they run its defaults. An arm "KNOWN.LABEL" runs KNOWN's settings.
func armEnv(arm string, base map[string]string, jvmMetrics string, mix coldstart.Mix, extra map[string]string) map[string]string {
	if coldstart.ArmBase(arm) == coldstart.ArmOff {
		return nil
	}
	env := map[string]string{}
	maps.Copy(env, base)
	switch coldstart.ArmBase(arm) {
	case coldstart.ArmUpstreamLike:
		maps.Copy(env, UpstreamLikeEnv)
	case coldstart.ArmOnLimit1:
		env["WARMUP_PROBE_SHAPES"] = "limit1"
	case coldstart.ArmOnCustom:
		env["WARMUP_QUERY"] = strings.Join(mix.Shapes(), ";")
	case coldstart.ArmOnSingleStage:
		env["WARMUP_MULTISTAGE"] = "off"
	case coldstart.ArmOnJIT:
		env["WARMUP_JVM_METRICS_URL"] = jvmMetrics
	}
	maps.Copy(env, extra)
	return env
}

// UpstreamLikeEnv emulates Pinot's built-in broker warmup with the sidecar: upstream's
// SELECT * ... LIMIT 1 probe, a floor of 1000 successful probes at concurrency 1, the count
// alone ending it, within 15 s. What it cannot show: the built-in one runs inside the broker
// and skips the HTTP path the sidecar's probes take.
var UpstreamLikeEnv = map[string]string{
	"WARMUP_PROBE_SHAPES":   "limit1",
	"WARMUP_EXIT":           "floor",
	"WARMUP_MIN_ITERATIONS": "1000",
	"WARMUP_CONCURRENCY":    "1",
	"WARMUP_BUDGET":         "15s",
}
