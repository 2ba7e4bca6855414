package rollout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/proxy"
)

// The timeline's sources on the test bed:
//
//   - deleted, exited, killed, created, ready, not_ready: a watch of the broker pods on the API
//     server, each stamped when the watch delivered it (the API's own timestamps have whole
//     seconds). deleted: the pod got a deletionTimestamp; exited: the pod object is gone (the
//     node agent deletes it once every container has exited); killed instead when a container's
//     last termination says SIGKILL (exit code 137, or signal 9); created: the first status with
//     a container running; ready / not_ready: the Ready condition's transitions.
//   - healthy, warm: the harness's own polls (not the kubelet's probes) of the broker's /health and
//     the sidecar's /readyz, every 200 ms through the pod network from the pod's start until the
//     first 200.
//   - in_service, out_of_service: the service proxy's entries and exits (proxy.Event).
//   - jit: with the JMX agent, the broker JVM's compile time read every second through the pod
//     network from the pod's start; boost_ended: the broker container's CPU limit in the pod's
//     status (what the node agent applies) fell below its first one; warm carries the sidecar's
//     /status outcome read right after its /readyz first answered 200.
//   - restarted: the broker container's restartCount in the pod's status grew (the node agent
//     restarted it in place: a failed liveness probe, or the JVM exited).

// podLife is what the watch has recorded of one pod (one UID).
type podLife struct {
	ordinal        int
	deleted, ready bool
	created        bool
	killed         bool // a container's termination said SIGKILL
	stopPolls      context.CancelFunc
	// cpuLimit is the broker container's CPU limit in its first status that had one; boostEnded:
	// a later status had a lower one.
	cpuLimit   *resource.Quantity
	boostEnded bool
	restarts   int32 // the broker container's restartCount last seen
}

// transitions are the events one observation of a pod adds to what life recorded (life is
// updated): a pure function of the pod object, so the rules can be tested without a cluster.
func transitions(life *podLife, p *corev1.Pod) []Kind {
	var out []Kind
	if !life.created && running(p) {
		life.created = true
		out = append(out, KindCreated)
	}
	if ready := isReady(p); ready != life.ready && life.created {
		life.ready = ready
		if ready {
			out = append(out, KindReady)
		} else {
			out = append(out, KindNotReady)
		}
	}
	if !life.deleted && p.DeletionTimestamp != nil {
		life.deleted = true
		out = append(out, KindDeleted)
	}
	if sigkilled(p) {
		life.killed = true
	}
	if lim, ok := brokerCPULimit(p); ok {
		switch {
		case life.cpuLimit == nil:
			life.cpuLimit = &lim
		case !life.boostEnded && lim.Cmp(*life.cpuLimit) < 0:
			life.boostEnded = true
			out = append(out, KindBoostEnded)
		}
	}
	if cs, ok := brokerStatus(p); ok {
		for ; life.restarts < cs.RestartCount; life.restarts++ { // one event per restart
			out = append(out, KindRestarted)
		}
	}
	return out
}

// brokerStatus is the broker container's status, if the pod has one.
func brokerStatus(p *corev1.Pod) (corev1.ContainerStatus, bool) {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == brokerCtr {
			return cs, true
		}
	}
	return corev1.ContainerStatus{}, false
}

// restartDetail is a restarted event's Detail: the broker container's restart count and how its
// last run ended, e.g. "restart 2: exit 137 (Error)".
func restartDetail(p *corev1.Pod) string {
	cs, _ := brokerStatus(p)
	d := fmt.Sprintf("restart %d", cs.RestartCount)
	if t := cs.LastTerminationState.Terminated; t != nil {
		d += fmt.Sprintf(": exit %d", t.ExitCode)
		if t.Reason != "" {
			d += " (" + t.Reason + ")"
		}
	}
	return d
}

// brokerCPULimit is the broker container's CPU limit as its status reports it (what runs).
func brokerCPULimit(p *corev1.Pod) (resource.Quantity, bool) {
	cs, ok := brokerStatus(p)
	if !ok || cs.Resources == nil {
		return resource.Quantity{}, false
	}
	q, ok := cs.Resources.Limits[corev1.ResourceCPU]
	return q, ok
}

// gone is the event of a pod object's removal: exited, or killed when a container was SIGKILLed.
func gone(life *podLife, last *corev1.Pod) Kind {
	if life.killed || (last != nil && sigkilled(last)) {
		return KindKilled
	}
	return KindExited
}

func running(p *corev1.Pod) bool {
	for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if cs.State.Running != nil {
			return true
		}
	}
	return false
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// sigkilled: a container's current or last termination was by SIGKILL.
func sigkilled(p *corev1.Pod) bool {
	for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		for _, t := range []*corev1.ContainerStateTerminated{cs.State.Terminated, cs.LastTerminationState.Terminated} {
			if t != nil && (t.ExitCode == 137 || t.Signal == 9) {
				return true
			}
		}
	}
	return false
}

// ordinal is a StatefulSet pod's ordinal, the suffix of its name.
func ordinal(name string) (int, error) {
	i := strings.LastIndexByte(name, '-')
	n, err := strconv.Atoi(name[i+1:])
	if i < 0 || err != nil {
		return 0, fmt.Errorf("pod %q: not a StatefulSet pod name (<set>-<ordinal>)", name)
	}
	return n, nil
}

// podNet translates a pod's container port to where it is served on loopback (testbed.Bed.PodURL).
type podNet interface {
	PodURL(p *corev1.Pod, port int32) (string, error)
}

// watcher keeps the timeline of the broker pods from the API server and the harness's polls.
type watcher struct {
	tl     *Timeline
	net    podNet
	http   *http.Client
	log    *slog.Logger
	mu     sync.Mutex
	lives  map[types.UID]*podLife
	broker map[string]string // pod name → the broker's host:port (stable per name: podnet)
	polls  sync.WaitGroup
	synced chan struct{} // closed once the watch has listed the pods
	// jmxPort is the broker JVM's JMX exporter agent's port in the pod (0: none).
	jmxPort int32
}

func newWatcher(net podNet, log *slog.Logger) *watcher {
	return &watcher{tl: &Timeline{}, net: net, log: log, http: &http.Client{Timeout: 2 * time.Second},
		lives: map[types.UID]*podLife{}, broker: map[string]string{}, synced: make(chan struct{})}
}

// waitSynced waits until the watch has listed the pods, so that what follows is seen as it
// happens.
func (w *watcher) waitSynced(ctx context.Context) error {
	select {
	case <-w.synced:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("watch the broker pods: %w", ctx.Err())
	case <-time.After(time.Minute):
		return errors.New("watch the broker pods: not listed within a minute")
	}
}

// run watches the namespace's broker pods until ctx ends, then waits for its polls.
func (w *watcher) run(ctx context.Context, client kubernetes.Interface) error {
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = brokerPods }))
	inf := f.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.seen(ctx, o) },
		UpdateFunc: func(_, o any) { w.seen(ctx, o) },
		DeleteFunc: func(o any) { w.removed(o) },
	}); err != nil {
		return fmt.Errorf("watch the broker pods: %w", err)
	}
	if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		w.log.Warn("watch of the broker pods failed; retrying", "error", err)
	}); err != nil {
		return fmt.Errorf("watch the broker pods: %w", err)
	}
	var ran sync.WaitGroup
	ran.Go(func() { inf.RunWithContext(ctx) })
	if cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		close(w.synced)
	}
	ran.Wait()
	w.polls.Wait()
	return nil
}

// seen records one observation of a pod.
func (w *watcher) seen(ctx context.Context, o any) {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	now := time.Now()
	n, err := ordinal(p.Name)
	if err != nil {
		w.log.Warn("broker pod ignored", "error", err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	life := w.lives[p.UID]
	if life == nil {
		life = &podLife{ordinal: n}
		w.lives[p.UID] = life
	}
	if u, err := w.net.PodURL(p, brokerPort); err == nil {
		w.broker[p.Name] = strings.TrimPrefix(u, "http://")
	}
	wasCreated := life.created
	for _, k := range transitions(life, p) {
		ev := Event{At: now, Pod: n, Broker: w.broker[p.Name], Kind: k}
		switch k {
		case KindBoostEnded:
			lim, _ := brokerCPULimit(p)
			ev.Detail = life.cpuLimit.String() + " → " + lim.String()
		case KindRestarted:
			ev.Detail = restartDetail(p)
		}
		w.tl.add(ev)
	}
	if !wasCreated && life.created && !life.deleted {
		pctx, cancel := context.WithCancel(ctx)
		life.stopPolls = cancel
		pod := p.DeepCopy()
		w.polls.Go(func() { w.poll(pctx, pod, n, brokerPort, "/health", KindHealthy) })
		if port, ok := sidecarPort(pod); ok {
			w.polls.Go(func() { w.poll(pctx, pod, n, port, "/readyz", KindWarm) })
		}
		if w.jmxPort > 0 {
			w.polls.Go(func() { w.readJIT(pctx, pod, n) })
		}
	}
	if life.deleted && life.stopPolls != nil {
		life.stopPolls() // a terminating pod's polls would only time out
	}
}

// removed records a pod object's removal.
func (w *watcher) removed(o any) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	life := w.lives[p.UID]
	if life == nil {
		return
	}
	if life.stopPolls != nil {
		life.stopPolls()
	}
	delete(w.lives, p.UID)
	w.tl.add(Event{At: now, Pod: life.ordinal, Broker: w.broker[p.Name], Kind: gone(life, p)})
}

// sidecarPort is the sidecar container's readiness probe port (a main container or a native
// sidecar), if the pod has one.
func sidecarPort(p *corev1.Pod) (int32, bool) {
	for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		if c.Name != sidecarCtr || c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil {
			continue
		}
		port := c.ReadinessProbe.HTTPGet.Port
		if port.IntVal > 0 {
			return port.IntVal, true
		}
		for _, cp := range c.Ports {
			if cp.Name == port.StrVal {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// poll GETs path on the pod's port every 200 ms until it first answers 200, and records kind.
func (w *watcher) poll(ctx context.Context, p *corev1.Pod, n int, port int32, path string, kind Kind) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		// The port is known to the pod network once the container that uses it launched.
		if u, err := w.net.PodURL(p, port); err == nil && w.ok(ctx, u+path) {
			ev := Event{At: time.Now(), Pod: n, Kind: kind}
			if kind == KindWarm {
				ev.Detail, ev.Run = w.outcome(ctx, u+"/status")
			}
			w.mu.Lock()
			ev.Broker = w.broker[p.Name]
			w.tl.add(ev)
			w.mu.Unlock()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (w *watcher) ok(ctx context.Context, url string) bool {
	status, _, err := w.get(ctx, url)
	return err == nil && status == http.StatusOK
}

// get is one GET of the harness's polls: the status and up to 1 MiB of the body.
func (w *watcher) get(ctx context.Context, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// addProxy adds a service proxy's entries and exits to the timeline.
func (w *watcher) addProxy(evs []proxy.Event) {
	for _, e := range evs {
		_, name, _ := strings.Cut(e.Pod, "/")
		n, err := ordinal(name)
		if err != nil {
			w.log.Warn("proxy event for no broker pod", "pod", e.Pod)
			continue
		}
		k := KindInService
		if e.Kind == proxy.KindLeave {
			k = KindOutOfService
		}
		w.tl.add(Event{At: e.At, Pod: n, Broker: e.Target, Kind: k})
	}
}
