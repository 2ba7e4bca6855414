package rollout

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
)

// Template is the pod template a rollout applies: the broker's JVM options and, for ON pods,
// the sidecar beside it.
type Template struct {
	// BrokerJVMOpts are pod i's broker JVM options (each its own GC log).
	BrokerJVMOpts func(pod int) []string
	// Sidecar runs the warmup-sidecar binary SidecarBin with SidecarEnv (the pod's broker and
	// controller URLs and its listen address are added) beside the broker.
	Sidecar    bool
	SidecarBin string
	SidecarEnv map[string]string
}

// pod is one broker slot's pod: the broker, its sidecar (ON) and the kubelet's probes of both.
type pod struct {
	i     int
	b     cluster.Broker
	sc    *sidecar.Proc
	ready bool // guarded by Fleet.mu
	// broker and side are the containers' verdicts, owned by the probe goroutines (under Fleet.mu).
	broker, side readiness
	stop         context.CancelFunc
	done         chan struct{} // closed once the pod's goroutines ended
}

// create starts pod i from t: the sidecar first (as in a pod, both containers start together;
// the sidecar only waits for the broker), then the broker, then the pod's goroutines: the
// harness's own 200 ms watch of /health and /readyz for the timeline, and the kubelet's probes.
func (f *Fleet) create(ctx context.Context, i int, t Template, tag string) error {
	b := f.c.Broker(i)
	p := &pod{i: i, b: b, broker: readiness{p: f.model.Broker}, side: readiness{p: f.model.Sidecar}}
	if t.Sidecar {
		env := map[string]string{
			"WARMUP_BROKER_URL":     b.URL(),
			"WARMUP_CONTROLLER_URL": f.c.ControllerURL(),
			"WARMUP_LOG_FORMAT":     "text",
			"WARMUP_LISTEN_ADDR":    fmt.Sprintf("127.0.0.1:%d", b.Ports().Sidecar),
		}
		for k, v := range t.SidecarEnv {
			env[k] = v
		}
		logf, err := os.Create(filepath.Join(f.work, fmt.Sprintf("sidecar-%s-pod%d.log", tag, i)))
		if err != nil {
			return fmt.Errorf("create pod %d: %w", i, err)
		}
		sc, err := sidecar.Start(t.SidecarBin, env, logf)
		if err != nil {
			logf.Close()
			return fmt.Errorf("create pod %d: %w", i, err)
		}
		go func() { waitExit(sc); logf.Close() }()
		p.sc = sc
	}
	if err := b.Start(ctx, cluster.WithBrokerJVMOpts(t.BrokerJVMOpts(i)...)); err != nil {
		if p.sc != nil {
			_ = p.sc.Stop(5 * time.Second)
		}
		return fmt.Errorf("create pod %d: %w", i, err)
	}
	created := time.Now()
	f.tl.add(Event{At: created, Pod: i, Broker: b.Address(), Kind: KindCreated})
	pctx, cancel := context.WithCancel(context.Background())
	p.stop, p.done = cancel, make(chan struct{})
	g, gctx := errgroup.WithContext(pctx)
	g.Go(func() error { f.watch(gctx, p, b.URL()+"/health", KindHealthy); return nil })
	g.Go(func() error { f.probe(gctx, p, created, &p.broker, b.URL()+"/health"); return nil })
	if p.sc != nil {
		g.Go(func() error { f.watch(gctx, p, p.sc.URL+"/readyz", KindWarm); return nil })
		g.Go(func() error { f.probe(gctx, p, created, &p.side, p.sc.URL+"/readyz"); return nil })
	}
	go func() { _ = g.Wait(); close(p.done) }()
	f.mu.Lock()
	f.pods[i] = p
	f.mu.Unlock()
	return nil
}

func waitExit(sc *sidecar.Proc) {
	for {
		if done, _ := sc.Exited(); done {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// watch polls url every 200 ms until it first answers 200 and records kind: the timeline's
// view, finer than the kubelet's.
func (f *Fleet) watch(ctx context.Context, p *pod, url string, kind Kind) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		if f.get(ctx, url, 2*time.Second) {
			f.tl.add(Event{At: time.Now(), Pod: p.i, Broker: p.b.Address(), Kind: kind})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// probe is the kubelet's prober for one container: the first probe InitialDelay after the
// start, then one every Period, each fed to the container's readiness; a change of the pod's
// readiness (every container ready) is recorded and propagated to the Service.
func (f *Fleet) probe(ctx context.Context, p *pod, started time.Time, r *readiness, url string) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(time.Until(started.Add(r.p.InitialDelay))):
	}
	t := time.NewTicker(r.p.Period)
	defer t.Stop()
	for {
		ok := f.get(ctx, url, r.p.Timeout)
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		changed := r.observe(ok)
		podReady := p.broker.ready && (p.sc == nil || p.side.ready)
		flipped := changed && podReady != p.ready
		if flipped {
			p.ready = podReady
		}
		f.mu.Unlock()
		if flipped {
			kind := KindNotReady
			if podReady {
				kind = KindReady
			}
			f.tl.add(Event{At: time.Now(), Pod: p.i, Broker: p.b.Address(), Kind: kind})
			f.endpoint(p.i, podReady)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// get is one HTTP GET: true on 200 within timeout.
func (f *Fleet) get(ctx context.Context, url string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := f.http.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// remove deletes pod i as the API server and kubelet do: the endpoint starts leaving the
// Service and the containers get SIGTERM at the same instant (the broker after its preStop,
// if any); whatever still runs at the grace period's end is SIGKILLed. It returns once every
// container has exited.
func (f *Fleet) remove(ctx context.Context, i int) error {
	f.mu.Lock()
	p := f.pods[i]
	f.mu.Unlock()
	if p == nil {
		return fmt.Errorf("delete pod %d: no such pod", i)
	}
	deleted := time.Now()
	f.tl.add(Event{At: deleted, Pod: i, Broker: p.b.Address(), Kind: KindDeleted})
	f.endpoint(i, false)
	p.stop() // the kubelet stops probing a terminating pod's readiness into the endpoints
	var (
		wg     sync.WaitGroup
		killed atomic.Bool
		err    error
	)
	wg.Go(func() {
		if f.model.PreStop > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(f.model.PreStop):
			}
		}
		err = p.b.Terminate(context.WithoutCancel(ctx), f.model.Grace-time.Since(deleted))
		if time.Since(deleted) >= f.model.Grace {
			killed.Store(true)
		}
	})
	if p.sc != nil {
		wg.Go(func() {
			if p.sc.Stop(f.model.Grace) != nil && time.Since(deleted) >= f.model.Grace {
				killed.Store(true)
			}
		})
	}
	wg.Wait()
	<-p.done
	kind := KindExited
	if killed.Load() {
		kind = KindKilled
	}
	f.tl.add(Event{At: time.Now(), Pod: i, Broker: p.b.Address(), Kind: kind})
	f.mu.Lock()
	f.pods[i] = nil
	f.mu.Unlock()
	if err != nil {
		return fmt.Errorf("delete pod %d: %w", i, err)
	}
	return nil
}
