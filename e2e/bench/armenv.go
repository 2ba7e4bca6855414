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
// also waits for a quiet JIT compiler.
func armEnv(arm string, base map[string]string, jvmMetrics string, mix coldstart.Mix, extra map[string]string) map[string]string {
	if arm == coldstart.ArmOff {
		return nil
	}
	env := map[string]string{}
	maps.Copy(env, base)
	switch arm {
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
