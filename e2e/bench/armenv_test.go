package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

func TestArmEnv(t *testing.T) {
	base := map[string]string{"WARMUP_BROKER_URL": "http://b", "WARMUP_CONTROLLER_URL": "http://c"}
	const jvmURL = "http://b:8008/metrics"
	mix, err := coldstart.NamedMix(coldstart.MixMSE, "bench_events")
	if err != nil {
		t.Fatal(err)
	}
	if env := armEnv(coldstart.ArmOff, base, jvmURL, mix, nil); env != nil {
		t.Errorf("off: env %v, want no sidecar", env)
	}
	// The sidecar's defaults and the LIMIT 1 arm never see the mix: no query, no table list.
	for arm, want := range map[string]string{coldstart.ArmOnDefault: "", coldstart.ArmOnBaseline: "", coldstart.ArmOnLimit1: "limit1", coldstart.ArmOnJIT: ""} {
		env := armEnv(arm, base, jvmURL, mix, nil)
		if env["WARMUP_BROKER_URL"] != "http://b" || env["WARMUP_PROBE_SHAPES"] != want || env["WARMUP_MULTISTAGE"] != "" {
			t.Errorf("%s: env %v, want the base and WARMUP_PROBE_SHAPES=%q", arm, env, want)
		}
		if jit := env["WARMUP_JVM_METRICS_URL"]; (arm == coldstart.ArmOnJIT) != (jit == jvmURL) {
			t.Errorf("%s: WARMUP_JVM_METRICS_URL=%q; only on_jit is told the JVM's metrics (%s)", arm, jit, jvmURL)
		}
		for k, v := range env {
			if k == "WARMUP_QUERY" || k == "WARMUP_TABLES" || strings.Contains(v, "SELECT") {
				t.Errorf("%s: %s=%q hands the sidecar the mix", arm, k, v)
			}
		}
	}
	// on_single_stage: the defaults with the multi-stage engine left out, and nothing of the mix.
	env := armEnv(coldstart.ArmOnSingleStage, base, jvmURL, mix, nil)
	if env["WARMUP_MULTISTAGE"] != "off" || env["WARMUP_PROBE_SHAPES"] != "" || env["WARMUP_QUERY"] != "" {
		t.Errorf("on_single_stage: env %v, want the defaults with WARMUP_MULTISTAGE=off", env)
	}
	// on_custom: the sidecar's own splitter must read back one query per shape, each with its SET.
	env = armEnv(coldstart.ArmOnCustom, base, jvmURL, mix, map[string]string{"WARMUP_BUDGET": "30s"})
	got, err := sqltext.Split(env["WARMUP_QUERY"])
	if err != nil || !slices.Equal(got, mix.Shapes()) {
		t.Errorf("on_custom WARMUP_QUERY splits into %q (%v), want the %d shapes %q", got, err, len(mix.Shapes()), mix.Shapes())
	}
	for _, q := range got {
		if !strings.HasPrefix(q, "SET useMultistageEngine=true; ") {
			t.Errorf("on_custom: %q lost its SET", q)
		}
	}
	if env["WARMUP_BUDGET"] != "30s" {
		t.Errorf("extra settings missing: %v", env)
	}
	if _, ok := base["WARMUP_QUERY"]; ok {
		t.Error("armEnv wrote into the base map")
	}
	// upstream_like: Pinot's built-in warmup, emulated; a labelled arm runs its base's settings.
	for _, arm := range []string{coldstart.ArmUpstreamLike, coldstart.ArmUpstreamLike + ".x"} {
		env = armEnv(arm, base, jvmURL, mix, nil)
		for k, v := range map[string]string{"WARMUP_PROBE_SHAPES": "limit1", "WARMUP_EXIT": "floor", "WARMUP_MIN_ITERATIONS": "1000",
			"WARMUP_CONCURRENCY": "1", "WARMUP_BUDGET": "15s", "WARMUP_BROKER_URL": "http://b"} {
			if env[k] != v {
				t.Errorf("%s: %s=%q, want %q (env %v)", arm, k, env[k], v, env)
			}
		}
	}
	// The broker-side arms run the sidecar's defaults, whatever their label.
	for _, arm := range []string{coldstart.ArmOnC1, coldstart.ArmOnAOT, coldstart.ArmOnAOTLoad, "on_default.jdk25"} {
		env = armEnv(arm, base, jvmURL, mix, nil)
		if len(env) != len(base) {
			t.Errorf("%s: env %v, want the sidecar's defaults (the base alone)", arm, env)
		}
	}
	if env := armEnv("off.jdk25", base, jvmURL, mix, nil); env != nil {
		t.Errorf("off.jdk25: env %v, want no sidecar", env)
	}
}

func TestExtraEnvPutsTheArmsOwnOverTheStudys(t *testing.T) {
	e := &Env{cfg: Config{
		SidecarEnv: map[string]string{"WARMUP_BUDGET": "15s", "WARMUP_LOG_LEVEL": "debug"},
		ArmEnv:     map[string]map[string]string{coldstart.ArmOnJIT: {"WARMUP_BUDGET": "60s"}},
	}}
	if got := e.extraEnv(coldstart.ArmOnJIT); got["WARMUP_BUDGET"] != "60s" || got["WARMUP_LOG_LEVEL"] != "debug" {
		t.Errorf("on_jit: %v, want its own budget over the study's, the rest kept", got)
	}
	if got := e.extraEnv(coldstart.ArmOnDefault); got["WARMUP_BUDGET"] != "15s" {
		t.Errorf("on_default: %v, want the study's budget", got)
	}
	if e.cfg.SidecarEnv["WARMUP_BUDGET"] != "15s" {
		t.Error("extraEnv wrote into the study's settings")
	}
}
