package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Arms of the rollout study.
const (
	ArmOff         = "off"          // no sidecar: a pod is Ready on the broker's /health
	ArmOffFast     = "off_fast"     // off with the short broker probe on_fast has, without the gate
	ArmLBSlowStart = "lb_slowstart" // off + the balancer's slow start: the peers' ramp
	// ArmOnDefault is the sidecar with its defaults: brokerReadiness.decidedBy auto, which keeps the
	// chart's 60 s readiness delay on brokers with a CPU limit and lets the sidecar decide on
	// brokers without one (as the official chart ships them).
	ArmOnDefault = "on_default"
	// ArmOnChart is the sidecar with brokerReadiness.decidedBy chart, set: the chart's delay
	// whatever the brokers' CPU (on_default's before auto, for studies of brokers without a limit).
	ArmOnChart = "on_chart"
	ArmOnFast  = "on_fast" // on_default + brokerReadiness.decidedBy sidecar, set: the gate decides
	// ArmOnFastPaced is on_fast with the sidecar's probes capped (warmup.maxProbeRate,
	// Config.PacedRate; by default one broker's share of the study's traffic: the warming pod is
	// sent no more queries a second than it will serve once in the Service).
	ArmOnFastPaced = "on_fast_paced"
	ArmOnBoost     = "on_boost" // on_fast + brokerCpuBoost: the broker's CPU limit raised until the sidecar gives it back
	// ArmOnBoostFixed is on_boost given back at a fixed time, as kube-startup-cpu-boost and GKE's
	// startup boost do: no JIT signal, the settle time (Config.BoostFixedHold) after the gate opened.
	ArmOnBoostFixed = "on_boost_fixed"
	// ArmOnBoostCompilers is on_boost with more JIT compiler threads for the boosted CPU: the
	// broker's jvmOpts add -XX:CICompilerCount (Config.BoostCompilers; the chart's
	// -XX:ActiveProcessorCount=2 gives the JVM 2, one C1 and one C2 thread, sized once at start).
	ArmOnBoostCompilers = "on_boost_compilers"
	// ArmOnBoostGentle is on_boost with fewer probes in flight (Config.GentleConcurrency, the
	// sidecar's warmup.concurrency): what a gentler warmup saves the pods in service while a
	// boosted broker is warmed, and what it costs the warmed pod's entry.
	ArmOnBoostGentle = "on_boost_gentle"
	// ArmOnBoost300m is on_boost on brokers of their own CPU request and limit (ReferenceBrokerCPU,
	// by the arm's broker.resources): the CPU-limited boosted gate, a reference inside a study
	// whose brokers run as the chart ships them.
	ArmOnBoost300m = "on_boost_300m"
	ArmOnSlowStart = "on_slowstart" // both
	ArmOnC1        = "on_c1"        // on_default + warmup-inject's brokerJvm.c1Only (-XX:TieredStopAtLevel=1)
)

// ArmOrder is every arm, in report order.
var ArmOrder = []string{ArmOff, ArmOffFast, ArmLBSlowStart, ArmOnChart, ArmOnDefault, ArmOnFast, ArmOnFastPaced, ArmOnBoost, ArmOnBoostFixed, ArmOnBoostCompilers, ArmOnBoostGentle, ArmOnBoost300m, ArmOnSlowStart, ArmOnC1}

// StudyArms are the full study's arms by default: the chart as it is, the short probe with and
// without the gate, the sidecar's defaults, the balancer's ramp. on_slowstart, on_c1,
// on_boost, on_boost_fixed, on_boost_compilers, on_boost_gentle and on_boost_300m are there to ask for.
var StudyArms = []string{ArmOff, ArmOffFast, ArmLBSlowStart, ArmOnDefault, ArmOnFast}

// DefaultSlowStart is the lb_slowstart ramp: HAProxy `slowstart 30s`.
const DefaultSlowStart = 30 * time.Second

// armSpec is what an arm changes: the sidecar (warmup-inject's values route), the
// broker's readiness probe (fast: it starts at once and samples every second, by the chart's
// values without the sidecar, by warmup-inject's brokerReadiness.decidedBy sidecar with it), the
// balancer's ramp (HAProxy's slowstart), the broker's JIT (warmup-inject's brokerJvm.c1Only, the
// lever the README documents for the cold tail), the broker's CPU at start (warmup-inject's
// brokerCpuBoost, given back by the sidecar), the broker's CPU itself (the chart's broker.resources).
type armSpec struct {
	sidecar   bool
	fast      bool
	slowStart bool
	c1        bool
	boost     bool
	// fixedBoost: the boost given back a fixed time after the gate opened, not on the JIT's evidence.
	fixedBoost bool
	// compilers: the broker JVM's compiler threads set by the study (Config.BoostCompilers).
	compilers bool
	// gentle: the sidecar's probes in flight set by the study (Config.GentleConcurrency).
	gentle bool
	// paced: the sidecar's probe rate capped by the study (bed.pacedRate).
	paced bool
	// chartDecides: brokerReadiness.decidedBy chart, set (the default auto otherwise).
	chartDecides bool
	// ownCPU: the broker's CPU request and limit, whatever the study's ("": the study's).
	ownCPU string
}

func specOf(arm string) (armSpec, error) {
	switch arm {
	case ArmOff:
		return armSpec{}, nil
	case ArmOffFast:
		return armSpec{fast: true}, nil
	case ArmLBSlowStart:
		return armSpec{slowStart: true}, nil
	case ArmOnDefault:
		return armSpec{sidecar: true}, nil
	case ArmOnChart:
		return armSpec{sidecar: true, chartDecides: true}, nil
	case ArmOnFast:
		return armSpec{sidecar: true, fast: true}, nil
	case ArmOnFastPaced:
		return armSpec{sidecar: true, fast: true, paced: true}, nil
	case ArmOnBoost:
		return armSpec{sidecar: true, fast: true, boost: true}, nil
	case ArmOnBoostFixed:
		return armSpec{sidecar: true, fast: true, boost: true, fixedBoost: true}, nil
	case ArmOnBoostCompilers:
		return armSpec{sidecar: true, fast: true, boost: true, compilers: true}, nil
	case ArmOnBoostGentle:
		return armSpec{sidecar: true, fast: true, boost: true, gentle: true}, nil
	case ArmOnBoost300m:
		return armSpec{sidecar: true, fast: true, boost: true, ownCPU: ReferenceBrokerCPU}, nil
	case ArmOnSlowStart:
		return armSpec{sidecar: true, slowStart: true}, nil
	case ArmOnC1:
		return armSpec{sidecar: true, c1: true}, nil
	}
	return armSpec{}, fmt.Errorf("arm %q: want one of %s", arm, strings.Join(ArmOrder, ", "))
}

// sortArms puts arms in report order.
func sortArms(arms []string) []string {
	out := slices.Clone(arms)
	slices.SortStableFunc(out, func(a, b string) int { return slices.Index(ArmOrder, a) - slices.Index(ArmOrder, b) })
	return out
}
