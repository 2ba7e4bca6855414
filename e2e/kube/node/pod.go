package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// podWorker owns one pod from its binding to this node until its processes are gone and the pod
// is deleted, as the kubelet's pod worker does. One goroutine (run) changes its state; probe
// goroutines read and feed it under mu.
type podWorker struct {
	a        *Agent
	uid      types.UID
	key      string
	latest   chan *corev1.Pod // the newest pod object (a buffer of one, newest wins)
	events   chan struct{}    // a container exited or a probe changed its result
	stopCh   chan struct{}    // forceStop
	stopOnce sync.Once

	mu          sync.Mutex
	pod         *corev1.Pod
	net         *podnet.Pod
	dir         string
	vols        map[string]string
	ctrs        []*container // init containers (sidecars among them) in spec order, then the main ones
	setupAt     time.Time    // the sandbox's creation (status.startTime)
	setupErr    string
	retrySetup  time.Time
	terminating bool
	finished    bool
	allocated   map[string]corev1.ResourceRequirements // per container, as applied to the cgroups
	resize      *corev1.PodCondition                   // PodResizePending while a resize waits
	conds       map[corev1.PodConditionType]corev1.PodCondition
	lastStatus  string // the last status patched (JSON), to patch only on change
}

func newPodWorker(a *Agent, pod *corev1.Pod) *podWorker {
	return &podWorker{
		a: a, uid: pod.UID, key: pod.Namespace + "/" + pod.Name,
		latest: make(chan *corev1.Pod, 1), events: make(chan struct{}, 1), stopCh: make(chan struct{}),
		pod: pod, allocated: map[string]corev1.ResourceRequirements{}, conds: map[corev1.PodConditionType]corev1.PodCondition{},
	}
}

// update offers the worker a newer pod object.
func (w *podWorker) update(pod *corev1.Pod) {
	for {
		select {
		case w.latest <- pod:
			return
		default:
			select {
			case <-w.latest:
			default:
			}
		}
	}
}

func (w *podWorker) poke() {
	select {
	case w.events <- struct{}{}:
	default:
	}
}

// forceStop stops the pod's processes without the API server (the pod is gone, or the agent
// stops): SIGTERM, 2 s, SIGKILL.
func (w *podWorker) forceStop() { w.stopOnce.Do(func() { close(w.stopCh) }) }

func (w *podWorker) log() func(msg string, args ...any) {
	return func(msg string, args ...any) { w.a.o.Log.Info(msg, append([]any{"pod", w.key}, args...)...) }
}

// run is the worker's loop: every change (a newer pod, an exit, a probe result, a timer) is
// followed by a reconcile and a status sync.
func (w *podWorker) run(ctx context.Context) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case pod := <-w.latest:
			w.mu.Lock()
			w.pod = pod
			w.mu.Unlock()
		case <-w.events:
		case <-tick.C:
		case <-w.stopCh:
			w.kill(2 * time.Second)
			w.cleanup()
			return
		case <-ctx.Done():
			w.kill(2 * time.Second)
			w.cleanup()
			return
		}
		w.reconcile(ctx)
		w.syncStatus(ctx)
		if w.finished {
			w.deletePod(ctx)
			return
		}
	}
}

// reconcile moves the pod one step towards what its spec asks.
func (w *podWorker) reconcile(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	exits := false
	for _, c := range w.ctrs { // collect exits
		if c.proc != nil && c.proc.Exited() && c.term == nil {
			c.exited()
			exits = true
			w.log()("container exited", "container", c.spec.Name, "code", c.term.ExitCode, "reason", c.term.Message)
			if !w.terminating {
				w.afterExit(c, now)
			}
		}
	}
	if exits {
		w.syncReadiness()
	}
	if w.pod.DeletionTimestamp != nil && !w.terminating {
		w.beginTermination()
	}
	if w.terminating {
		w.terminate()
		return
	}
	if w.setupAt.IsZero() {
		if now.Before(w.retrySetup) {
			return
		}
		if err := w.setup(ctx); err != nil {
			w.setupErr, w.retrySetup = err.Error(), now.Add(5*time.Second)
			w.log()("pod setup failed", "err", err)
			return
		}
		w.setupErr = ""
	}
	w.resizeIfAsked(now)
	// Init containers one by one; a sidecar counts as done once started.
	for _, c := range w.ctrs {
		if c.kind == kindMain {
			break
		}
		if c.kind == kindInit && c.completed {
			continue
		}
		if !c.running() && !now.Before(c.nextStart) && (c.kind == kindSidecar || !c.completed) {
			w.start(ctx, c)
		}
		if c.kind == kindSidecar && c.started {
			continue
		}
		return
	}
	for _, c := range w.ctrs {
		if c.kind == kindMain && !c.running() && !now.Before(c.nextStart) && w.mayStart(c) {
			w.start(ctx, c)
		}
	}
}

// mayStart applies the pod's restartPolicy to a main container that is not running.
func (w *podWorker) mayStart(c *container) bool {
	if c.id == "" {
		return true
	}
	switch w.pod.Spec.RestartPolicy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return c.term != nil && c.term.ExitCode != 0
	}
	return true
}

// afterExit schedules the restart of a container that exited (sidecars always restart; init
// containers until they succeed; main ones by the pod's restartPolicy).
func (w *podWorker) afterExit(c *container, now time.Time) {
	switch {
	case c.kind == kindInit && c.completed:
		return
	case c.kind == kindMain && !w.mayStart(c):
		return
	}
	c.scheduleRestart(now)
}

// setup creates the pod's sandbox: its network (IP and ports), directories, cgroup and volumes.
func (w *podWorker) setup(ctx context.Context) error {
	pod := w.pod
	n, err := w.a.o.Net.Pod(pod.Namespace, pod.Name)
	if err != nil {
		return err
	}
	w.net = n
	w.dir = filepath.Join(w.a.o.Dir, "pods", pod.Namespace+"_"+pod.Name+"_"+string(pod.UID))
	if err := os.MkdirAll(filepath.Join(w.dir, "logs"), 0o755); err != nil {
		return err
	}
	if w.ctrs == nil {
		for i := range pod.Spec.InitContainers {
			c := &pod.Spec.InitContainers[i]
			k := kindInit
			if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				k = kindSidecar
			}
			w.ctrs = append(w.ctrs, &container{spec: c, kind: k, waiting: "PodInitializing"})
		}
		for i := range pod.Spec.Containers {
			w.ctrs = append(w.ctrs, &container{spec: &pod.Spec.Containers[i], kind: kindMain, waiting: "ContainerCreating"})
		}
		for _, c := range w.ctrs {
			w.allocated[c.spec.Name] = *c.spec.Resources.DeepCopy()
		}
	}
	// Every port a container declares or a probe targets, so addresses in env and args translate.
	for _, c := range w.ctrs {
		for _, p := range probePorts(c.spec) {
			if _, err := n.HostPort(p); err != nil {
				return err
			}
		}
	}
	if err := w.a.cg.ensure(PodCgroup(w.uid), w.podCPU()); err != nil {
		return err
	}
	w.a.admit(w.uid, w.podRequestMilli())
	vols, err := volumes{client: w.a.o.Client, nodeDir: w.a.o.Dir}.materialize(ctx, pod, w.dir)
	if err != nil {
		return err
	}
	w.vols = vols
	w.setupAt = time.Now()
	return nil
}

// probePorts are a container's declared ports and the ports its probes and hooks target.
func probePorts(c *corev1.Container) []int32 {
	var out []int32
	for _, p := range c.Ports {
		out = append(out, p.ContainerPort)
	}
	for _, pr := range []*corev1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
		if pr == nil {
			continue
		}
		var port intstr.IntOrString
		switch {
		case pr.HTTPGet != nil:
			port = pr.HTTPGet.Port
		case pr.TCPSocket != nil:
			port = pr.TCPSocket.Port
		default:
			continue
		}
		if p, err := resolvePort(port, c.Ports); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// start runs a new instance of c: env, mounts, its cgroup, the launcher's process, its probes.
func (w *podWorker) start(ctx context.Context, c *container) {
	fail := func(reason string, err error) {
		c.waiting, c.message = reason, err.Error()
		c.nextStart = time.Now().Add(2 * time.Second)
		w.log()("container not started", "container", c.spec.Name, "reason", reason, "err", err)
	}
	ln, err := w.a.o.Launchers.For(c.spec.Image)
	if err != nil {
		fail("ErrImagePull", err)
		return
	}
	env, err := envSource{client: w.a.o.Client, apiHost: w.a.o.APIHost, apiPort: w.a.o.APIPort}.containerEnv(ctx, w.pod, c.spec)
	if err != nil {
		fail("CreateContainerConfigError", err)
		return
	}
	ms, err := mounts(c.spec, w.vols)
	if err != nil {
		fail("CreateContainerConfigError", err)
		return
	}
	rel := PodCgroup(w.uid) + "/" + c.spec.Name
	if err := w.a.cg.ensure(rel, containerCPU(w.allocated[c.spec.Name])); err != nil {
		fail("RunContainerError", err)
		return
	}
	cdir := filepath.Join(w.dir, "containers", c.spec.Name)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		fail("RunContainerError", err)
		return
	}
	lc := launch.Container{
		Pod: w.key, Name: c.spec.Name, Image: c.spec.Image,
		Command: expandAll(c.spec.Command, env), Args: expandAll(c.spec.Args, env),
		Env: env, Mounts: ms, Dir: cdir, Net: w.net,
	}
	if err := c.launch(lc, ln, w.a.cg.procsFiles(rel), filepath.Join(w.dir, "logs")); err != nil {
		fail("RunContainerError", err)
		return
	}
	w.log()("container started", "container", c.spec.Name, "pid", c.proc.PID(), "restarts", c.restarts)
	pr := c.proc
	go func() {
		<-pr.Done()
		w.poke()
	}()
	if c.spec.StartupProbe == nil {
		c.started = true
	}
	if c.spec.ReadinessProbe == nil {
		c.ready = c.started
	}
	w.syncReadiness() // the other containers' (this one's probes start at once)
	w.startProbes(c)
}

// startProbes runs one goroutine per probe of the instance, ticking every periodSeconds from the
// container's start; the rules (the results so far) are the container's, across its instances.
func (w *podWorker) startProbes(c *container) {
	stop := make(chan struct{})
	c.stopProb = func() { close(stop) }
	if c.probes == nil {
		c.probes = map[probeKind]*probeRules{}
		for kind, spec := range map[probeKind]*corev1.Probe{
			probeStartup: c.spec.StartupProbe, probeReadiness: c.spec.ReadinessProbe, probeLiveness: c.spec.LivenessProbe,
		} {
			if spec != nil {
				c.probes[kind] = newProbeRules(kind, spec)
			}
		}
	}
	id := c.id
	for _, rules := range c.probes {
		p := prober{addr: w.hostAddr, userAgent: "kube-probe/" + w.a.minorVersion()}
		go w.probeLoop(c, id, rules, p, stop)
	}
}

func (w *podWorker) hostAddr(port int32) (string, error) {
	hp, err := w.net.HostPort(port)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", hp), nil
}

func (w *podWorker) probeLoop(c *container, id string, rules *probeRules, p prober, stop chan struct{}) {
	period := time.Duration(rules.spec.PeriodSeconds) * time.Second
	if period <= 0 {
		period = 10 * time.Second
	}
	t := time.NewTicker(period)
	defer t.Stop()
	select { // a trigger meant for the previous instance: this one probes at once anyway
	case <-rules.trigger:
	default:
	}
	for {
		w.mu.Lock()
		if c.id != id {
			w.mu.Unlock()
			return
		}
		view := containerView{ID: c.id, Running: c.running(), StartedAt: c.startedAt, Started: c.started, Deleting: w.terminating}
		do := rules.shouldProbe(time.Now(), view)
		ports := c.spec.Ports
		w.mu.Unlock()
		if do {
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-stop:
				case <-ctx.Done():
				}
				cancel()
			}()
			outcome, msg := p.do(ctx, rules.spec, ports)
			cancel()
			w.mu.Lock()
			if c.id == id && rules.record(outcome) {
				w.applyProbe(c, rules, msg)
			}
			w.mu.Unlock()
		}
		select {
		case <-stop:
			return
		case <-t.C:
		case <-rules.trigger:
			t.Reset(period)
		}
	}
}

// syncReadiness is the kubelet's prober manager's UpdatePodStatus on a pod sync (under mu): a
// started container whose readiness result is not success gets its readiness probe run at once.
// The kubelet syncs a pod when a container starts or exits and when a probe result changes, so
// a container whose startup probe just succeeded turns ready then, not a period later.
func (w *podWorker) syncReadiness() {
	for _, c := range w.ctrs {
		r := c.probes[probeReadiness]
		if r == nil || !c.started || !c.running() || r.result == resultSuccess {
			continue
		}
		select {
		case r.trigger <- struct{}{}:
		default:
		}
	}
}

// applyProbe acts on a changed result (under mu): readiness sets ready; startup success marks
// the container started; a liveness or startup failure kills the container (killContainer, with
// the probe's terminationGracePeriodSeconds if it has one, else the pod's) to be restarted.
func (w *podWorker) applyProbe(c *container, rules *probeRules, msg string) {
	w.log()("probe result changed", "container", c.spec.Name, "probe", rules.kind, "result", rules.result, "msg", msg)
	switch rules.kind {
	case probeReadiness:
		c.ready = rules.result == resultSuccess && c.started
	case probeStartup:
		if rules.result == resultSuccess {
			c.started = true
			if c.spec.ReadinessProbe == nil {
				c.ready = true
			}
		}
	}
	if (rules.kind == probeLiveness || rules.kind == probeStartup) && rules.result == resultFailure && !w.terminating {
		grace := w.graceSeconds()
		if rules.spec.TerminationGracePeriodSeconds != nil {
			grace = *rules.spec.TerminationGracePeriodSeconds
		}
		w.killContainer(c, grace, nil)
	}
	w.syncReadiness()
	w.poke()
}

func (w *podWorker) graceSeconds() int64 {
	if w.pod.Spec.TerminationGracePeriodSeconds != nil {
		return *w.pod.Spec.TerminationGracePeriodSeconds
	}
	return 30
}

// kill stops every process of the pod (SIGTERM, grace, SIGKILL).
func (w *podWorker) kill(grace time.Duration) {
	w.mu.Lock()
	var ps []*proc.Proc
	for _, c := range w.ctrs {
		if c.running() {
			ps = append(ps, c.proc)
		}
	}
	w.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Stop(grace)
		}()
	}
	wg.Wait()
}

// cleanup removes the pod's cgroup (killing anything left in it) and its CPU admission.
func (w *podWorker) cleanup() {
	w.mu.Lock()
	for _, c := range w.ctrs {
		if c.stopProb != nil {
			c.stopProb()
			c.stopProb = nil
		}
	}
	w.mu.Unlock()
	if err := w.a.cg.remove(PodCgroup(w.uid)); err != nil {
		w.a.o.Log.Warn("pod cgroup", "pod", w.key, "err", err)
	}
	w.a.release(w.uid)
}

// deletePod is the kubelet's last word on a pod it has stopped: delete with grace 0, on the
// condition that the object is still this pod (UID), so a StatefulSet's replacement of the same
// name is never touched.
func (w *podWorker) deletePod(ctx context.Context) {
	zero := int64(0)
	uid := w.uid
	err := w.a.o.Client.CoreV1().Pods(w.pod.Namespace).Delete(ctx, w.pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid},
	})
	if err != nil && ctx.Err() == nil {
		w.log()("pod delete", "err", err)
	}
}
