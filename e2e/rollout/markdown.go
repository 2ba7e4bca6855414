package rollout

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// Markdown is the study's report: the per-arm table, the method, each rollout's figures.
func Markdown(s *Study, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Rolling restart of %d brokers behind a load balancer (Pinot %s)\n\n", s.Brokers, s.PinotVersion)
	if s.Smoke {
		b.WriteString("**SMOKE RUN: short probes and windows; it checks the tool, its figures measure nothing.**\n\n")
	}
	b.WriteString(Table(s))
	b.WriteString("\n" + Method(s) + "\n")
	b.WriteString(TargetsSection(s))
	b.WriteString(Pictures(s, name))
	b.WriteString(EventsSection(s))
	b.WriteString(WarmupCostSection(s))
	b.WriteString(RestartsSection(s))
	b.WriteString(PlatformSection(s))
	b.WriteString(JavaSection(s))
	b.WriteString(NotesSection(s))
	b.WriteString("\n")
	return b.String()
}

// NotesSection is the study's notes, written when it was made, a line each.
func NotesSection(s *Study) string {
	var b strings.Builder
	for _, n := range s.Notes {
		b.WriteString("\n- " + n)
	}
	return b.String()
}

// EventsSection is every event's figures, then which events were readied, begun unsettled or
// did not finish.
func EventsSection(s *Study) string {
	var b strings.Builder
	b.WriteString("\n## Every event\n\n")
	b.WriteString("Bound: per pod, its termination + the later of the probe's initial delay and (broker start → healthy + the sidecar's budget, ON pods) + one probe period + the Service's propagation + minReadySeconds; a rollout within it costs nothing beyond the broker's start, the budget and Kubernetes' own delays.\n\n")
	b.WriteString("| arm | event | failed (shutdown / start / other) | cancelled (shutdown / start / other) | steady p99 | worst 10 s p99 | … with no pod starting or warming | first 10 s in service per pod (p99, × steady; * another pod starting or warming) | neighbours: p99 while a pod starts or warms (× steady) | … while a pod starts / is warmed / is out, idle (× steady) | duration (bound) | broker restarts | start → Ready per pod (→ healthy) | terminate per pod | load avg |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var unfinished, unsettled, readied []string
	for _, arm := range s.ArmNames() {
		a := s.Arms[arm]
		for _, r := range a.Events() {
			f, c := byPhase(r)
			fmt.Fprintf(&b, "| %s | %s %d%s | %d (%s) | %d (%s) | %.0f ms | %.0f ms (%.1f×) | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n",
				arm, r.Kind, r.N, unsettledMark(r), r.Failed, f, r.Cancelled, c, r.Steady.P99Ms, r.Worst10sP99Ms, r.Worst10sRatio, quietCell(r), entriesCell(r), neighboursCell(r),
				phasesCell(r.NeighboursByPhase), durationCell(s, r), r.BrokerRestarts, podReady(r), podTerminate(r), r.LoadAverage)
			if r.Unfinished != "" {
				unfinished = append(unfinished, fmt.Sprintf("- %s %s %d: %s. %s\n", arm, r.Kind, r.N, r.Unfinished, recoveryClause(r)))
			}
			if r.Unsettled != "" {
				unsettled = append(unsettled, fmt.Sprintf("- %s %s %d: %s.\n", arm, r.Kind, r.N, r.Unsettled))
			}
			if r.Readied != "" {
				readied = append(readied, fmt.Sprintf("- %s %s %d: %s.\n", arm, r.Kind, r.N, r.Readied))
			}
		}
	}
	if len(readied) > 0 {
		b.WriteString("\nEvents whose fleet had another broker CPU than their arm's (the previous event's arm set its own): the fleet was first rolled to the arm's, so that the steady window is on brokers of the CPU the event rolls in:\n\n")
		b.WriteString(strings.Join(readied, ""))
	}
	if len(unsettled) > 0 {
		fmt.Fprintf(&b, "\nEvents begun unsettled (†: the fleet still lost queries after %.0f s of load, so the steady window, and every ratio over its p99, is an overloaded fleet's; the losses counted in the event began before it):\n\n", s.SteadyWaitS)
		b.WriteString(strings.Join(unsettled, ""))
	}
	if len(unfinished) > 0 {
		b.WriteString("\nEvents that did not finish within their bound (their figures end at it, with no tail; the load then stopped and the study waited for the fleet with no load):\n\n")
		b.WriteString(strings.Join(unfinished, ""))
	}
	return b.String()
}

// Table is the per-arm summary: what the README leads with.
func Table(s *Study) string {
	var b strings.Builder
	costs := hasWarmupCosts(s)
	b.WriteString("| arm | rollouts | failed queries (per rollout) | cancelled queries (per rollout) | failed + cancelled at shutdown / at start (all rollouts) | failure rate (median) | worst 10 s p99 / steady p99 (median, min–max) | … with no pod starting or warming (median, min–max) | a pod's first 10 s in service: p99 / steady (median, max) | neighbours' p99 while a pod starts or warms / steady (median, max) | … while a pod starts / is warmed / is out, idle (median of the rollouts) | rollout duration | pod start → Ready |")
	sep := "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	if costs {
		b.WriteString(" " + warmupCostHeader + " |")
		sep += "---|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, arm := range s.ArmNames() {
		rs := s.Arms[arm].Rollouts
		if len(rs) == 0 {
			fmt.Fprintf(&b, "| %s | 0 | not run | | | | | | | | | | |", armCell(s, arm))
			if costs {
				b.WriteString(" |")
			}
			b.WriteString("\n")
			continue
		}
		f := figuresOf(rs)
		n := fmt.Sprint(f.rollouts)
		if f.unsettled > 0 {
			n += fmt.Sprintf(" (%d begun unsettled)", f.unsettled)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d / %d | %s | %s | %s | %s | %s | %s | %s | %s |", armCell(s, arm), n, strings.Join(f.failed, ", "), strings.Join(f.cancelled, ", "),
			f.phase[PhaseShutdown], f.phase[PhaseStart], pct(median(f.rate)), ratioCell(f.ratio), orDash(f.quiet, ratioCell), entryCell(f.entry), entryCell(f.neigh),
			phasesMedianCell(f.phases), f.durationCell(), orDash(f.ready, secsCell))
		if costs {
			b.WriteString(" " + warmupCostCell(s.Arms[arm].WarmupCost) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Method says how the figures were made, in one paragraph.
func Method(s *Study) string {
	if s.Platform == nil {
		return legacyMethod(s)
	}
	p := s.Platform
	st := p.StatefulSet
	sidecar := ""
	if p.Sidecar != nil && st.SidecarProbe != nil {
		sidecar = fmt.Sprintf(" (sidecar: CPU request %s, limit %s; readiness probe period %.0f s)", orNone(p.Sidecar.CPURequest), orNone(p.Sidecar.CPULimit), st.SidecarProbe.PeriodS)
	}
	return fmt.Sprintf("Method: the official Pinot chart (%s) installed by helm (%s) on the Kubernetes test bed (docs/testbed.md): "+
		"Kubernetes %s (API server, controller manager, scheduler) on etcd %s, a node agent in the kubelet's place running each pod's containers "+
		"as processes in the pod's own CPU cgroup, node capacity %s CPU. %d broker pods, the broker container with %s%s, "+
		"%s, terminationGracePeriodSeconds %.0f, "+
		"podManagementPolicy %s, updateStrategy %s, %s; ZooKeeper, a controller, 2 servers and the %d-row bench table (Pinot %s) run outside the pods, "+
		"without a limit, on the same machine (%s). A rollout is `helm upgrade` with a new `kubectl.kubernetes.io/restartedAt` pod annotation and the arm's "+
		"values (the ON arms add the sidecar %s; on_c1 sets its brokerJvm.c1Only, -XX:TieredStopAtLevel=1; "+
		"on_fast its brokerReadiness.decidedBy sidecar: the broker's readiness probe starts at once and checks every 1 s, failure 100%s; off_fast gives "+
		"the broker the same probe by the chart's values, initialDelay 1 s, without the sidecar); the "+
		"StatefulSet controller picks order and pace. A scale-out is `helm upgrade` with one more replica. The Service (the chart's %s) is Debian's "+
		"HAProxy (round robin per request, no retries) whose servers the test bed's kube-proxy stand-in keeps to the Service's EndpointSlices "+
		"(min sync period %.0f s). Open-loop load of the %s mix at %.0f QPS through it (%s), client timeout %.0f ms; failed = an error answer, "+
		"cancelled = no answer within the timeout, counted from the helm upgrade to %.0f s after the StatefulSet reported every pod updated and Ready; "+
		"steady p99 is the %.0f s before the upgrade%s. The worst 10 s is also given over the windows when no pod was starting its broker or being "+
		"warmed by its sidecar (work that shares the servers and the node with the pods in service), and each pod's first 10 s in the Service "+
		"(the cold serve readiness is about) on its own; the neighbours' p99 is the load's while a pod was starting or being warmed and no pod was "+
		"in its first 10 s in the Service (what the pods in service answered meanwhile), also split by what the pod out of service was doing: its broker "+
		"starting (created → /health), its sidecar probing it with no pod starting (healthy → warm: the warmup's own cost), or nothing "+
		"(out of the Service, no pod starting or warmed: the fleet one broker short, the control). lb_slowstart is HAProxy `slowstart %.0fs`.%s Arms interleaved.",
		p.Chart, p.Helm, p.Kubernetes, p.Etcd, p.Node.CPU, s.Brokers, brokerCPUClause(p.Broker), sidecar,
		probesClause(s), st.TerminationGraceS, st.PodManagementPolicy, st.UpdateStrategy, brokerJVM(s), s.BenchRows, s.PinotVersion, s.Machine.String(),
		sidecarRoute(p), decidedByDefault(p), brokerService, p.ProxyMinSyncS, mixName(s), s.RateQPS, rateSource(s), s.TimeoutMs, s.TailS, s.SteadyS, steadyClause(s), s.SlowStartS, boostClause(s)+pacedClause(s)+ownCPUClause(s))
}

// decidedByDefault says what the other ON arms' brokerReadiness.decidedBy was: the default the
// study recorded ("" for studies before auto, whose default was chart and said nothing here).
func decidedByDefault(p *Platform) string {
	switch {
	case p.DecidedByDefault == "":
		return ""
	case p.Broker.CPULimit == "":
		return fmt.Sprintf(", where the other ON arms leave it at its default, %s, which lets the sidecar decide for a broker without a CPU limit, as these are", p.DecidedByDefault)
	}
	return fmt.Sprintf(", where the other ON arms leave it at its default, %s, which keeps the chart's probe for a broker with a CPU limit, as these have", p.DecidedByDefault)
}

// sidecarRoute says how the ON arms got the sidecar: the values route, or (studies before it)
// warmup-inject as helm's post-renderer.
func sidecarRoute(p *Platform) string {
	if p.SidecarRoute != "" {
		return "through the official chart's own values, by the values route: " + p.SidecarRoute
	}
	return "with warmup-inject as the post-renderer"
}

// steadyClause says when the steady window began, for a study that let the fleet settle first.
func steadyClause(s *Study) string {
	if s.SteadyWaitS == 0 {
		return ""
	}
	return fmt.Sprintf(", begun once the fleet had served the load for %.0f s without a lost query (after at least %.0f s of load, at most %.0f s: "+
		"an event begun without that is marked †)", s.SteadyQuietS, s.WarmS, s.SteadyWaitS)
}

// unsettledMark flags an event whose steady window began on a fleet that still lost queries.
func unsettledMark(r *Result) string {
	if r.Unsettled == "" {
		return ""
	}
	return " †"
}

// brokerCPUClause is the broker container's CPU in the method's words: "CPU request 300m and
// limit 300m", or which of them it has not (the official chart sets neither: requests.memory only,
// and a broker without a limit takes what its node has spare).
func brokerCPUClause(r Resources) string {
	switch {
	case r.CPURequest != "" && r.CPULimit != "":
		return fmt.Sprintf("CPU request %s and limit %s", r.CPURequest, r.CPULimit)
	case r.CPURequest != "":
		return fmt.Sprintf("CPU request %s and no CPU limit, as the official chart ships the limit", r.CPURequest)
	case r.CPULimit != "":
		return fmt.Sprintf("no CPU request and CPU limit %s", r.CPULimit)
	}
	return "no CPU request or limit, as the official chart ships it"
}

// armCell is the arm's name, with its broker CPU where it is not the study's.
func armCell(s *Study, arm string) string {
	if c := s.Arms[arm].BrokerCPU; c != nil {
		return fmt.Sprintf("%s (broker CPU request %s, limit %s)", arm, orNone(c.CPURequest), orNone(c.CPULimit))
	}
	return arm
}

// ownCPUClause says which arms ran their brokers at a CPU of their own, and how the study kept
// each event's steady window on brokers of the CPU it rolls in ("" when none did).
func ownCPUClause(s *Study) string {
	var arms []string
	for _, name := range s.ArmNames() {
		if c := s.Arms[name].BrokerCPU; c != nil {
			arms = append(arms, fmt.Sprintf("%s's brokers have %s by the arm's own broker.resources", name, brokerCPUClause(*c)))
		}
	}
	if len(arms) == 0 {
		return ""
	}
	return " " + strings.Join(arms, "; ") + " (the study's: " + brokerCPUClause(s.Platform.Broker) + "). Before an event whose arm's broker CPU is not the fleet's, " +
		"the fleet was first rolled to it (off_fast's pod template, unmeasured, with no load) and warmed by the load: every steady window is on brokers of the CPU the event rolls in."
}

// boostClause says what the boost arms did, when the study has one and recorded it.
func boostClause(s *Study) string {
	if s.BoostCPULimit == "" || (s.Arms[ArmOnBoost] == nil && s.Arms[ArmOnBoostFixed] == nil && s.Arms[ArmOnBoostCompilers] == nil && s.Arms[ArmOnBoostGentle] == nil && s.Arms[ArmOnBoost300m] == nil) {
		return ""
	}
	rule := "the gate open and the JIT quiet, with a JIT signal; the settle time after the gate opened, without"
	if s.BoostSettle != "" {
		rule = fmt.Sprintf("the gate open and the JIT quiet, or the chart's settle of %s after the gate opened, whichever first", s.BoostSettle)
	}
	return fmt.Sprintf(" on_boost is on_fast with warmup-inject's brokerCpuBoost: the broker container's CPU limit %s until the sidecar "+
		"resizes the pod back (%s); "+
		"on_boost_fixed the same boost with no JIT signal and a settle of %.0f s: given back that long after the gate opened.%s%s", s.BoostCPULimit, rule, s.BoostFixedHoldS, compilersClause(s), gentleClause(s))
}

// pacedClause says on_fast_paced's cap ("" without the arm).
func pacedClause(s *Study) string {
	if s.Arms[ArmOnFastPaced] == nil || s.PacedRate == 0 {
		return ""
	}
	return fmt.Sprintf(" on_fast_paced is on_fast with the sidecar's warmup.maxProbeRate %g probes/s (%.2g× one broker's share of the %.0f QPS).",
		s.PacedRate, s.PacedRate/(s.RateQPS/float64(max(s.Brokers, 1))), s.RateQPS)
}

// gentleClause says what on_boost_gentle changed, when the study has it.
func gentleClause(s *Study) string {
	if s.Arms[ArmOnBoostGentle] == nil || s.GentleConcurrency == 0 {
		return ""
	}
	return fmt.Sprintf(" on_boost_gentle is on_boost with the sidecar's warmup.concurrency %d (its default 4): fewer probes in flight.", s.GentleConcurrency)
}

// compilersClause says what on_boost_compilers changed, when the study has it and recorded it.
func compilersClause(s *Study) string {
	if s.Arms[ArmOnBoostCompilers] == nil || s.BoostCompilers == 0 {
		return ""
	}
	return fmt.Sprintf(" on_boost_compilers is on_boost with -XX:CICompilerCount=%d added to the broker's jvmOpts (the chart's JVM has 2 compiler threads, one C1 and one C2).", s.BoostCompilers)
}

func orNone(q string) string { return cmp.Or(q, "none") }

func (p ProbeJSON) String() string {
	return fmt.Sprintf("initialDelay %.0f s, period %.0f s, timeout %.0f s, success %d, failure %d", p.InitialDelayS, p.PeriodS, p.TimeoutS, p.Success, p.Failure)
}

// probesClause says which readiness probes the pods had: each arm's as recorded, or (a study made
// before they were) the platform's, which then is the StatefulSet's after the last event.
func probesClause(s *Study) string {
	var arms []string
	for _, name := range s.ArmNames() {
		a := s.Arms[name]
		if a.BrokerProbe == nil {
			continue
		}
		c := name + ": broker " + a.BrokerProbe.String()
		if a.SidecarProbe != nil {
			c += fmt.Sprintf("; sidecar every %.0f s, failure %d", a.SidecarProbe.PeriodS, a.SidecarProbe.Failure)
		}
		arms = append(arms, c)
	}
	if len(arms) > 0 {
		return "the readiness probes as the API server held them (" + strings.Join(arms, " | ") + ")"
	}
	return "the broker's readiness probe as the API server held it after the study's last event (" + s.Platform.StatefulSet.BrokerProbe.String() + ")"
}

// legacyMethod is Method for a study made on the harness's model of Kubernetes, before the test
// bed (its rules were docs/rollout-model.md, removed with the model).
func legacyMethod(s *Study) string {
	m := s.Model
	if m == nil {
		m = &LegacyModel{}
	}
	return fmt.Sprintf("Method: a real Pinot %s cluster on loopback (ZooKeeper, controller, 2 servers, %d brokers, the %d-row bench table), "+
		"%s; the brokers sit behind Debian's HAProxy (one backend, round robin per request, no retries) whose servers follow the "+
		"harness's former model of Kubernetes endpoints (before the test bed of docs/testbed.md): a pod is in the backend only while Ready (the kubelet's rule with the official "+
		"chart's broker probe: initialDelay %.0f s, period %.0f s, timeout %.0f s, success %d, failure %d; ON pods also need the sidecar's "+
		"/readyz under this chart's probe), a deleted pod leaves it %.0f s after its containers get SIGTERM (grace %.0f s, preStop %.0f s). "+
		"Each rollout replaces the pods from the highest ordinal down like a StatefulSet RollingUpdate (minReadySeconds %.0f) under "+
		"open-loop load of the %s mix at %.0f QPS through the balancer (%s), client timeout %.0f ms; failed = an error answer, "+
		"cancelled = no answer within the timeout, counted from the first deletion to %.0f s after the last pod is available; steady p99 "+
		"is the %.0f s before the first deletion; every pod shares the machine's cores here, so the worst 10 s is also given over the windows when no "+
		"pod was starting its broker or being warmed by its sidecar (on Kubernetes each pod has its own CPU), and each pod's first 10 s in the "+
		"Service (the cold serve readiness is about) on its own; lb_slowstart is HAProxy `slowstart %.0fs`; on_c1 adds -XX:TieredStopAtLevel=1 to the broker. "+
		"Arms interleaved, machine: %s.",
		s.PinotVersion, s.Brokers, s.BenchRows, brokerJVM(s), m.BrokerProbe.InitialDelayS, m.BrokerProbe.PeriodS, m.BrokerProbe.TimeoutS,
		m.BrokerProbe.Success, m.BrokerProbe.Failure, m.PropagationS, m.GraceS, m.PreStopS, m.MinReadyS, mixName(s), s.RateQPS,
		rateSource(s), s.TimeoutMs, s.TailS, s.SteadyS, s.SlowStartS, s.Machine.String())
}

func brokerJVM(s *Study) string {
	return "the brokers on the official chart's JVM options (" + strings.Join(s.BrokerJVMOpts, " ") + ")"
}

func mixName(s *Study) string {
	if s.Mix == "" {
		return "queries-file"
	}
	return s.Mix
}

func rateSource(s *Study) string {
	if s.Calibration == nil {
		return "rate given"
	}
	return fmt.Sprintf("%.0f%% of the warm fleet's closed-loop capacity of %.0f QPS", s.Calibration.Fraction*100, s.Calibration.Capacity.QPS)
}

func byPhase(r *Result) (failed, cancelled string) {
	f, c := map[string]int{}, map[string]int{}
	for _, p := range r.ByPhase {
		f[p.Phase] += p.Failed
		c[p.Phase] += p.Cancelled
	}
	cell := func(m map[string]int) string {
		return fmt.Sprintf("%d / %d / %d", m[PhaseShutdown], m[PhaseStart], m["other"])
	}
	return cell(f), cell(c)
}

func podReady(r *Result) string {
	var parts []string
	for _, p := range r.Pods {
		switch {
		case p.ReadySeconds > 0:
			parts = append(parts, fmt.Sprintf("%d: %.0f s (%.0f s)", p.Pod, p.ReadySeconds, p.HealthySeconds))
		case p.HealthySeconds > 0: // an unfinished event's pod
			parts = append(parts, fmt.Sprintf("%d: not Ready (%.0f s)", p.Pod, p.HealthySeconds))
		default:
			parts = append(parts, fmt.Sprintf("%d: not Ready (not healthy)", p.Pod))
		}
	}
	return strings.Join(parts, ", ")
}

func podTerminate(r *Result) string {
	var parts []string
	for _, p := range r.Pods {
		k := ""
		if p.Killed {
			k = " KILLED"
		}
		if p.TerminateSeconds > 0 {
			parts = append(parts, fmt.Sprintf("%d: %.1f s%s", p.Pod, p.TerminateSeconds, k))
		}
	}
	return strings.Join(parts, ", ")
}

func median(v []float64) float64 { return coldstart.Aggregate(v).Median }

func pct(x float64) string { return fmt.Sprintf("%.2f %%", 100*x) }

func ratioCell(v []float64) string {
	a := coldstart.Aggregate(v)
	return fmt.Sprintf("%.1f× (%.1f–%.1f)", a.Median, a.Min, a.Max)
}

// neighboursCell is the neighbours' p99 and ratio, or "–" when no query was sent while a pod
// started or warmed outside every entry span.
func neighboursCell(r *Result) string {
	if r.NeighboursQueries == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f ms (%.1f×)", r.NeighboursP99Ms, r.NeighboursRatio)
}

// phasesCell is an event's neighbours' ratio while a pod starts / is warmed / is out, idle; "–"
// for a phase with no query, or for a study made before the split (no figures).
func phasesCell(p *NeighboursByPhase) string {
	if p == nil {
		return "–"
	}
	return phasesMedianCell([]*NeighboursByPhase{p})
}

// phasesMedianCell is each phase's median ratio over the events that had a query in it.
func phasesMedianCell(ps []*NeighboursByPhase) string {
	cell := func(pick func(*NeighboursByPhase) Neighbours) string {
		if m, ok := phaseMedian(ps, pick); ok {
			return fmt.Sprintf("%.1f×", m)
		}
		return "–"
	}
	return cell(startingPhase) + " / " + cell(warmingPhase) + " / " + cell(outIdlePhase)
}

// phaseMedian is one phase's median ratio over the events that had a query in it (false: none
// had, or the study was made before the split).
func phaseMedian(ps []*NeighboursByPhase, pick func(*NeighboursByPhase) Neighbours) (float64, bool) {
	var v []float64
	for _, p := range ps {
		if p != nil && pick(p).Queries > 0 {
			v = append(v, pick(p).Ratio)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return median(v), true
}

func startingPhase(p *NeighboursByPhase) Neighbours { return p.Starting }
func warmingPhase(p *NeighboursByPhase) Neighbours  { return p.Warming }
func outIdlePhase(p *NeighboursByPhase) Neighbours  { return p.OutIdle }

func quietCell(r *Result) string {
	if r.QuietWorst10sP99Ms == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f ms (%.1f×)", r.QuietWorst10sP99Ms, r.QuietWorst10sRatio)
}

// orDash is cell(v), or "–" with no value (a study made before the figure existed, a figure
// the study did not record).
func orDash(v []float64, cell func([]float64) string) string {
	if len(v) == 0 {
		return "–"
	}
	return cell(v)
}

func entryCell(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	a := coldstart.Aggregate(v)
	return fmt.Sprintf("%.1f× (max %.1f)", a.Median, a.Max)
}

// entriesCell is each pod's first 10 s in service, p99 over the steady p99 ("*": another pod
// was starting or being warmed meanwhile).
func entriesCell(r *Result) string {
	var parts []string
	for _, e := range r.Entries {
		busy := ""
		if e.Busy {
			busy = "*"
		}
		parts = append(parts, fmt.Sprintf("%d: %.0f ms (%.1f×)%s", e.Pod, e.P99Ms, e.Ratio, busy))
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

// readyTimes are the pods' start → Ready, leaving out a pod never Ready (an unfinished
// event's).
func readyTimes(pods []PodTimes) []float64 {
	var out []float64
	for _, p := range pods {
		if p.ReadySeconds > 0 {
			out = append(out, p.ReadySeconds)
		}
	}
	return out
}

// durationCell is an event's duration and its bound, or that it did not finish within the
// study's bound.
func durationCell(s *Study, r *Result) string {
	if r.Unfinished != "" {
		return fmt.Sprintf("did not finish within %.0f s", r.DurationSeconds)
	}
	return fmt.Sprintf("%.0f s (%.0f s)", r.DurationSeconds, Bound(s, r))
}

// recoveryClause says how the fleet an unfinished event left came back with no load.
func recoveryClause(r *Result) string {
	if r.RecoverySeconds == 0 {
		return "The fleet was not seen to recover with no load: the study stopped there."
	}
	return fmt.Sprintf("With no load, the fleet was rolled out and Ready %.0f s later.", r.RecoverySeconds)
}

func secsCell(v []float64) string {
	a := coldstart.Aggregate(v)
	return fmt.Sprintf("%.0f s (%.0f–%.0f)", a.Median, a.Min, a.Max)
}

// JavaSection is the Java client's view of every event, when it ran.
func JavaSection(s *Study) string {
	var b strings.Builder
	for _, arm := range s.ArmNames() {
		a := s.Arms[arm]
		for _, r := range a.Events() {
			j := r.JavaClient
			if j == nil {
				continue
			}
			if b.Len() == 0 {
				b.WriteString("\n## A client that picks brokers itself (Pinot's Java client, ZooKeeper selection)\n\n")
				b.WriteString("Beside the balancer's load, the real pinot-java-client 1.5.1 (DynamicBrokerSelector over the broker resource's external view, e2e/zkclient) sent the same queries at a tenth of the rate. It never sees Kubernetes readiness: a broker is picked as soon as Helix lists it.\n\n")
				b.WriteString("| arm | event | queries | to a pod not Ready | to a warming pod (healthy, not Ready) | failed | cancelled | p99 at warming pods | steady p99 | rollout p99 |\n")
				b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
			}
			wp := 0.0
			if w := j.ByState[StateWarming]; w != nil {
				wp = w.P99Ms
			}
			fmt.Fprintf(&b, "| %s | %s %d | %d | %d (%s) | %d (%s) | %d | %d | %.0f ms | %.0f ms | %.0f ms |\n", arm, r.Kind, r.N, j.Queries,
				j.NotReady, pct(j.NotReadyShare), j.Warming, pct(j.WarmingShare), j.Failed, j.Cancelled, wp, j.SteadyP99Ms, j.RolloutP99Ms)
		}
	}
	return b.String()
}

// Bound is what a rollout may cost by the target: per re-created pod, its termination, the
// later of the broker probe's initial delay and its start → healthy plus the sidecar's budget (ON
// arms), one probe period of granularity, the Service's propagation (the proxy's min sync period;
// the former model's propagation) and minReadySeconds.
func Bound(s *Study, r *Result) float64 {
	budget := 0.0
	if spec, err := specOf(r.Arm); err == nil && spec.sidecar {
		word, _, _ := strings.Cut(strings.TrimSpace(s.SidecarBudget), " ")
		if d, err := time.ParseDuration(word); err == nil {
			budget = d.Seconds()
		}
	}
	var probe ProbeJSON
	var propagation, minReady float64
	switch {
	case s.Platform != nil:
		probe, propagation, minReady = s.Platform.StatefulSet.BrokerProbe, s.Platform.ProxyMinSyncS, s.Platform.StatefulSet.MinReadyS
	case s.Model != nil:
		probe, propagation, minReady = s.Model.BrokerProbe, s.Model.PropagationS, s.Model.MinReadyS
	}
	total := 0.0
	for _, p := range r.Pods {
		total += p.TerminateSeconds + max(probe.InitialDelayS, p.HealthySeconds+budget) + probe.PeriodS + propagation + minReady
	}
	return total
}
