package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/testbed"
)

// The official chart's names for release "pinot" in namespace "pinot": its broker StatefulSet and
// Service (pinot.broker.fullname), the pods' labels, the broker container and port; and the
// sidecar container warmup-inject adds.
const (
	namespace     = "pinot"
	release       = "pinot"
	brokerSTS     = "pinot-broker"
	brokerService = "pinot-broker"
	brokerPods    = "app=pinot,component=broker"
	brokerCtr     = "broker"
	sidecarCtr    = "warmup-sidecar"
	brokerPort    = 8099
	// restartedAt is the pod-template annotation `kubectl rollout restart` sets: changing it
	// makes the StatefulSet controller replace every pod, nothing else changing.
	restartedAt = "kubectl.kubernetes.io/restartedAt"
)

// bed is the study's Kubernetes test bed (docs/testbed.md): the harness's ZooKeeper, controller,
// servers and tables (its own broker stopped), the real control plane and the node agent, and
// the brokers as pods of the official chart, installed and upgraded by helm, the ON arms' sidecar
// through the chart's own values (the values route). It remembers the release's values, since each upgrade states them all.
type bed struct {
	*testbed.Bed
	helm     *testbed.Helm
	pinot    *cluster.Cluster
	dir      string
	cfg      Config
	log      *slog.Logger
	base     string      // the chart values every release has (values.yaml)
	tpl      podTemplate // the pod template the release has now
	restart  string      // its restartedAt annotation ("" before the first rollout)
	replicas int
	portName string // the broker Service's port name, read from the rendered Service
	// described: the platform's broker probe is recorded (the install's, the chart's).
	described bool
	// controllerURL is the harness's controller as the sidecar reaches it: on a loopback address
	// that is not the pod's own (127.0.0.1 would be translated to the pod's ports; the controller
	// listens on every address).
	controllerURL string
	// pacedRate is on_fast_paced's warmup.maxProbeRate, set once the study's rate is known.
	pacedRate float64
	// jvmOpts is broker.jvmOpts as the base values have it (the chart's, with the JMX agent when
	// the study loads it): on_boost_compilers adds to it.
	jvmOpts string
}

// startBed stops the harness's broker (the chart's brokers serve instead) and starts the test
// bed beside the cluster with the Pinot and sidecar launchers. The pods' host ports start above
// the cluster's.
func startBed(ctx context.Context, cfg Config, c *cluster.Cluster, sidecarBin, dir string) (*bed, error) {
	opts := testbed.PinotOptions{Dir: dir, Cluster: c, SidecarBin: sidecarBin,
		BasePort: cfg.BasePort + cluster.PortSpan, Log: cfg.Logger.With("component", "testbed")}
	if cfg.JMXAgent {
		jar, err := cluster.InstallJMXAgent(ctx, cfg.Progress)
		if err != nil {
			return nil, err
		}
		opts.JMXAgentJar = jar
	}
	tb, h, err := testbed.StartPinot(ctx, opts)
	if err != nil {
		return nil, err
	}
	b := &bed{Bed: tb, helm: h, pinot: c, dir: dir, cfg: cfg, log: cfg.Logger, base: filepath.Join(dir, "values.yaml"), tpl: podTemplate{ArmOff, ArmOff},
		replicas: cfg.Brokers, controllerURL: fmt.Sprintf("http://127.0.0.2:%d", c.Ports().Controller)}
	if err := b.writeBase(ctx); err != nil {
		return nil, errors.Join(err, b.stop())
	}
	return b, nil
}

// writeBase writes the chart values every release has: the brokers beside the harness's
// cluster, their CPU and readiness delay, and with the JMX agent the chart's own broker.jvmOpts
// with the agent loaded as Pinot's monitoring guide loads it (on the pod's loopback: the pods
// share the machine's).
func (b *bed) writeBase(ctx context.Context) error {
	v := baseValues(b.cfg)
	opts, err := b.helm.Run(ctx, "show", "values", b.helm.Chart, "--jsonpath", "{.broker.jvmOpts}")
	if err != nil {
		return fmt.Errorf("the chart's broker.jvmOpts: %w", err)
	}
	b.jvmOpts = strings.TrimSpace(opts)
	if b.cfg.JMXAgent {
		b.jvmOpts += " " + jmxAgentOpt
		v.JVMOpts = b.jvmOpts
	}
	if err := v.Write(b.pinot, b.base); err != nil {
		return fmt.Errorf("broker values: %w", err)
	}
	return nil
}

// baseValues are the study's broker values but the JVM options: a CPU setting of CPUNone is no
// field at all, as the official chart ships the broker (requests.memory only).
func baseValues(cfg Config) testbed.BrokerValues {
	return testbed.BrokerValues{Replicas: cfg.Brokers, CPURequest: chartCPU(cfg.BrokerCPURequest), CPULimit: chartCPU(cfg.BrokerCPULimit),
		ReadinessDelay: int(cfg.ReadinessDelay / time.Second)}
}

// jmxAgentOpt loads the image's JMX exporter agent on the pod's port jmxPort.
var jmxAgentOpt = fmt.Sprintf("-javaagent:%s=127.0.0.1:%d:%s", launch.JMXAgentJar, jmxPort, launch.JMXAgentConf)

// jmxPort is the agent's port (Pinot's guide's 8008); jitURL the sidecar's JIT signal from it.
const jmxPort = 8008

var jitURL = fmt.Sprintf("http://127.0.0.1:%d/metrics?name[]=jvm_compilation_time_seconds_total", jmxPort)

// install is `helm install` of the chart with the off arm's template and waits until the
// StatefulSet has every broker Ready; then it reads the Service's port name.
func (b *bed) install(ctx context.Context) error {
	rel, err := b.releaseOf(b.tpl, b.replicas, b.restart)
	if err != nil {
		return err
	}
	if _, err := b.helm.Install(ctx, rel); err != nil {
		return fmt.Errorf("install the chart's brokers: %w", err)
	}
	if _, err := b.waitRolled(ctx, b.replicas, DefaultPodBound*time.Duration(b.replicas)); err != nil {
		return err
	}
	svc, err := b.Admin.CoreV1().Services(namespace).Get(ctx, brokerService, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the chart's broker Service: %w", err)
	}
	for _, p := range svc.Spec.Ports {
		if p.Port == brokerPort {
			b.portName = p.Name
		}
	}
	if b.portName == "" {
		return fmt.Errorf("the chart's Service %s has no port %d: %+v", brokerService, brokerPort, svc.Spec.Ports)
	}
	return nil
}

// DefaultPodBound bounds one pod's replacement: its termination (30 s grace), the JVM's start
// within its CPU limit on a busy machine, the readiness probe's initial delay, the sidecar's
// budget. An event bounds itself by it per pod (Config.PodBound); the install and the recovery
// after an unfinished event always by this.
const DefaultPodBound = 6 * time.Minute

// notRolledError: the StatefulSet was not rolled out within the bound; the event did not finish.
type notRolledError struct {
	replicas int
	bound    time.Duration
	last     string // the StatefulSet's status, or the last error reading it
	pods     string // podsSummary
	at       time.Time
}

func (e *notRolledError) Error() string {
	return fmt.Sprintf("StatefulSet %s not rolled out to %d Ready pods within %s (%s); pods: %s", brokerSTS, e.replicas, e.bound, e.last, e.pods)
}

// rollout is `kubectl rollout restart` with arm's values: a helm upgrade that stamps the pod
// template's restartedAt annotation and applies the arm's values; the StatefulSet controller
// replaces the pods in its own order and pace. It returns once the StatefulSet reports every
// pod updated and Ready, or with a *notRolledError after Config.PodBound per pod.
func (b *bed) rollout(ctx context.Context, arm string) (time.Time, error) {
	apply, err := b.prepareRollout(ctx, arm)
	if err != nil {
		return time.Time{}, err
	}
	return apply(ctx)
}

// prepareRollout readies arm's rollout (an ON arm's values route: its values written, the
// companion applied) and returns the rollout itself, so that an event's clock starts at the
// upgrade, as an operator's would whose values are already in their repository.
func (b *bed) prepareRollout(ctx context.Context, arm string) (func(context.Context) (time.Time, error), error) {
	restart := time.Now().UTC().Format(time.RFC3339Nano)
	up, err := b.prepareUpgrade(ctx, podTemplate{arm, arm}, b.replicas, restart)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (time.Time, error) {
		if err := up(ctx); err != nil {
			return time.Time{}, err
		}
		return b.waitRolled(ctx, b.replicas, b.cfg.PodBound*time.Duration(b.replicas))
	}, nil
}

// scale is `helm upgrade --set broker.replicaCount=n` with the release's pod template unchanged:
// the StatefulSet controller adds (or removes) the highest ordinals. It returns once the
// StatefulSet reports n pods, all updated and Ready.
func (b *bed) scale(ctx context.Context, n int) (time.Time, error) {
	apply, err := b.prepareScale(ctx, n)
	if err != nil {
		return time.Time{}, err
	}
	return apply(ctx)
}

// prepareScale is scale readied, as prepareRollout is for a rollout.
func (b *bed) prepareScale(ctx context.Context, n int) (func(context.Context) (time.Time, error), error) {
	up, err := b.prepareUpgrade(ctx, b.tpl, n, b.restart)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (time.Time, error) {
		if err := up(ctx); err != nil {
			return time.Time{}, err
		}
		return b.waitRolled(ctx, n, b.cfg.PodBound)
	}, nil
}

// podTemplate is what a release's pods are: arm's values, with the broker CPU of cpu's arm (arm
// itself but while the fleet is readied for another arm's CPU: readycpu.go).
type podTemplate struct{ arm, cpu string }

func (t podTemplate) String() string {
	if t.cpu == t.arm {
		return t.arm
	}
	return fmt.Sprintf("%s with %s's broker CPU", t.arm, t.cpu)
}

// prepareUpgrade prepares the helm release of t (testbed.Helm.Prepare) and returns its upgrade.
func (b *bed) prepareUpgrade(ctx context.Context, t podTemplate, replicas int, restart string) (func(context.Context) error, error) {
	rel, err := b.releaseOf(t, replicas, restart)
	if err != nil {
		return nil, err
	}
	if rel, err = b.helm.Prepare(ctx, rel); err != nil {
		return nil, fmt.Errorf("prepare the chart's brokers for %s (%d replicas): %w", t, replicas, err)
	}
	return func(ctx context.Context) error {
		if _, err := b.helm.Upgrade(ctx, rel); err != nil {
			return fmt.Errorf("upgrade the chart's brokers to %s (%d replicas): %w", t, replicas, err)
		}
		b.tpl, b.replicas, b.restart = t, replicas, restart
		return nil
	}, nil
}

// release is the helm release of arm's pod template: the chart's values (values.yaml, then the
// replicas, the restartedAt annotation, the study's probe settings and the arm's own broker CPU)
// and, for an ON arm, the values route with the arm's warmup-inject values (what operators
// install first).
func (b *bed) release(arm string, replicas int, restart string) (testbed.Release, error) {
	return b.releaseOf(podTemplate{arm, arm}, replicas, restart)
}

func (b *bed) releaseOf(t podTemplate, replicas int, restart string) (testbed.Release, error) {
	arm := t.arm
	spec, err := specOf(arm)
	if err != nil {
		return testbed.Release{}, err
	}
	if _, err := specOf(t.cpu); err != nil {
		return testbed.Release{}, err
	}
	broker := map[string]any{"replicaCount": replicas}
	if r := b.cpuValues(t.cpu); r != nil {
		broker["resources"] = r
	}
	if restart != "" {
		broker["podAnnotations"] = map[string]string{restartedAt: restart}
	}
	switch {
	case spec.fast && !spec.sidecar:
		broker["probes"] = map[string]any{"readiness": fastProbe}
	case b.cfg.ReadinessPeriod > 0:
		broker["probes"] = map[string]any{"readiness": map[string]any{"periodSeconds": int(b.cfg.ReadinessPeriod / time.Second)}}
	}
	if spec.compilers {
		// An explicit count also turns off HotSpot's per-CPU sizing (CICompilerCountPerCPU).
		broker["jvmOpts"] = strings.TrimSpace(fmt.Sprintf("%s -XX:CICompilerCount=%d", b.jvmOpts, b.cfg.BoostCompilers))
	}
	// JSON is YAML: helm and warmup-inject read these files as values files.
	event := filepath.Join(b.dir, "release.yaml")
	if err := writeJSON(event, map[string]any{"broker": broker}); err != nil {
		return testbed.Release{}, err
	}
	rel := testbed.Release{Name: release, Namespace: namespace, Values: []string{b.base, event}}
	if !spec.sidecar {
		return rel, nil
	}
	inject, err := b.injectValues(spec)
	if err != nil {
		return testbed.Release{}, err
	}
	path := filepath.Join(b.dir, "warmup-"+arm+".yaml")
	if err := writeJSON(path, inject); err != nil {
		return testbed.Release{}, err
	}
	rel.Sidecar, rel.WarmupValues = testbed.ValuesRoute, []string{path}
	return rel, nil
}

// cpuValues are broker.resources for arm's broker CPU where it is not the study's (nil: the base
// values' stand). A field the arm leaves unset is null, which helm takes as removing the base's.
func (b *bed) cpuValues(arm string) map[string]any {
	req, lim := b.cfg.armCPU(arm)
	if req == b.cfg.BrokerCPURequest && lim == b.cfg.BrokerCPULimit {
		return nil
	}
	field := func(q string) any {
		if q == CPUNone {
			return nil
		}
		return q
	}
	return map[string]any{"requests": map[string]any{"cpu": field(req)}, "limits": map[string]any{"cpu": field(lim)}}
}

// fastProbe is off_fast's broker readiness probe: what warmup-inject's brokerReadiness.decidedBy
// sidecar (period 1 s) makes of the official chart's (60 s delay, every 10 s, 10 failures), so that
// off_fast and on_fast differ by the gate alone. The chart reads an initialDelaySeconds of 0 as
// unset (its 60 s): 1 is the shortest it renders.
var fastProbe = map[string]any{"initialDelaySeconds": 1, "periodSeconds": 1, "failureThreshold": 100}

// injectValues are warmup-inject's values for an ON arm: the sidecar's settings (--sidecar-env),
// the controller it reads the tables from, the C1-only broker for on_c1, the gate deciding the
// broker's readiness for on_fast (set, not left to auto), the boost for on_boost, the smoke's probe
// period. The other arms leave brokerReadiness.decidedBy at its default, auto: the chart's delay on
// the study's brokers, which have a CPU limit.
func (b *bed) injectValues(spec armSpec) (map[string]any, error) {
	warmup, err := sidecarValues(b.cfg.SidecarEnv)
	if err != nil {
		return nil, err
	}
	if _, set := warmup["controllerUrl"]; !set {
		warmup["controllerUrl"] = b.controllerURL
	}
	v := map[string]any{"warmup": warmup}
	if spec.c1 {
		v["brokerJvm"] = map[string]any{"c1Only": true}
	}
	if spec.gentle {
		warmup["concurrency"] = b.cfg.GentleConcurrency
	}
	if spec.paced {
		if b.pacedRate <= 0 {
			return nil, fmt.Errorf("%s: no probe rate to cap at (the study's rate is not known yet)", ArmOnFastPaced)
		}
		warmup["maxProbeRate"] = b.pacedRate
	}
	switch {
	case spec.fast:
		v["brokerReadiness"] = map[string]any{"decidedBy": "sidecar"}
	case spec.chartDecides:
		v["brokerReadiness"] = map[string]any{"decidedBy": "chart"}
	}
	if _, set := warmup["jvmMetricsUrl"]; !set && b.cfg.JMXAgent {
		warmup["jvmMetricsUrl"] = jitURL
	}
	if spec.boost {
		// The Role names the pods up to the scale-out's extra one.
		boost := map[string]any{"enabled": true, "cpu": map[string]any{"limit": b.cfg.BoostCPULimit},
			"maxReplicas": b.cfg.Brokers + 1}
		if spec.fixedBoost {
			// No JIT signal: the sidecar gives the CPU back the settle time after its gate opened.
			delete(warmup, "jvmMetricsUrl")
			boost["settle"] = b.cfg.BoostFixedHold.String()
		}
		v["brokerCpuBoost"] = boost
	}
	if p := b.cfg.SidecarProbePeriod; p > 0 {
		v["readinessProbe"] = map[string]any{"periodSeconds": int(p / time.Second)}
	}
	return v, nil
}

func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("values %s: %w", path, err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return fmt.Errorf("values: %w", err)
	}
	return nil
}

// waitRolled waits until the StatefulSet's controller reports the rollout done: it has seen the
// newest spec, has replicas pods, every one of the update revision and Ready (the chart sets no
// minReadySeconds); and no other broker pod is left terminating (a scale-in's). It returns when
// it saw that (polled every 100 ms).
func (b *bed) waitRolled(ctx context.Context, replicas int, timeout time.Duration) (time.Time, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	want := int32(replicas)
	last := ""
	for {
		sts, err := b.Admin.AppsV1().StatefulSets(namespace).Get(wctx, brokerSTS, metav1.GetOptions{})
		if err == nil {
			if rolled(sts, want) && b.podsSettled(wctx, replicas) {
				return time.Now(), nil
			}
			s := sts.Status
			last = fmt.Sprintf("generation %d observed %d, replicas %d ready %d updated %d, revision %s current %s",
				sts.Generation, s.ObservedGeneration, s.Replicas, s.ReadyReplicas, s.UpdatedReplicas, s.UpdateRevision, s.CurrentRevision)
		} else {
			last = err.Error()
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil { // the study was stopped: not the event's doing
				return time.Time{}, fmt.Errorf("wait for StatefulSet %s to roll out: %w", brokerSTS, ctx.Err())
			}
			return time.Time{}, &notRolledError{replicas: replicas, bound: timeout, last: last, pods: b.podsSummary(), at: time.Now()}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// podsSettled: exactly n broker pods exist and none is terminating (a scale-in's pod is gone).
func (b *bed) podsSettled(ctx context.Context, n int) bool {
	pods, err := b.Pods(ctx, namespace, brokerPods)
	if err != nil || len(pods) != n {
		return false
	}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			return false
		}
	}
	return true
}

// rolled is the StatefulSet status `kubectl rollout status` waits for, with every pod Ready.
func rolled(sts *appsv1.StatefulSet, replicas int32) bool {
	s := sts.Status
	return sts.Spec.Replicas != nil && *sts.Spec.Replicas == replicas && s.ObservedGeneration >= sts.Generation &&
		s.Replicas == replicas && s.ReadyReplicas == replicas && s.UpdatedReplicas == replicas &&
		s.UpdateRevision != "" && s.CurrentRevision == s.UpdateRevision
}

// podsSummary is each broker pod's phase, conditions and containers, for an error.
func (b *bed) podsSummary() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pods, err := b.Pods(ctx, namespace, brokerPods)
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, p := range pods {
		s := fmt.Sprintf("%s %s", p.Name, p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue {
				s += fmt.Sprintf(" %s=%s(%s)", c.Type, c.Status, c.Message)
			}
		}
		for _, c := range p.Status.ContainerStatuses {
			s += fmt.Sprintf(" %s:ready=%v,restarts=%d", c.Name, c.Ready, c.RestartCount)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// stop uninstalls nothing (the whole control plane goes) and stops the bed: every pod's
// processes, the control plane.
func (b *bed) stop() error {
	if err := b.Stop(); err != nil {
		return errors.Join(errors.New("stop the test bed"), err)
	}
	return nil
}
