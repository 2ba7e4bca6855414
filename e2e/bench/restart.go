package bench

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// readyTimeout bounds one restart's wait for Ready: a JVM start plus the sidecar's budget,
// with room for a busy machine.
const readyTimeout = 5 * time.Minute

// Restart measures one cold restart of arm: SIGKILL the broker, start the sidecar (ON arms)
// while the broker is down, as in a restarted pod, start a fresh broker JVM, wait for the
// arm's Ready signal (OFF: broker /health 200; ON: sidecar /readyz 200) and run the load
// from that instant.
func (e *Env) Restart(ctx context.Context, arm string, n int, rate float64) (coldstart.Restart, *coldstart.Trace, error) {
	cfg := e.cfg
	tag := fmt.Sprintf("%s-%d", arm, n)
	if err := e.Cluster.KillBroker(); err != nil {
		return coldstart.Restart{}, nil, fmt.Errorf("kill broker: %w", err)
	}
	readyURL := e.Cluster.BrokerURL() + "/health"
	var sc *sidecar
	if env := e.sidecarEnv(arm); env != nil {
		listen, err := e.sidecarListen()
		if err != nil {
			return coldstart.Restart{}, nil, err
		}
		bin := e.sidecar
		if coldstart.ArmBase(arm) == coldstart.ArmOnBaseline {
			bin = cfg.BaselineSidecar
		}
		if sc, err = startSidecar(bin, listen, filepath.Join(e.work, "logs", "sidecar-"+tag+".log"), env); err != nil {
			return coldstart.Restart{}, nil, err
		}
		defer sc.stop()
		readyURL = sc.url + "/readyz"
	}
	opts := e.brokerOpts(arm, tag)
	aotLog := ""
	if coldstart.IsAOTArm(arm) {
		aotLog = filepath.Join(e.work, "logs", "aot-"+tag+".log")
		opts = append(opts, e.aotRunOpts(arm, aotLog)...)
	}
	// Every start names its java: a slot's settings persist, and the previous arm's may differ.
	if err := e.Cluster.StartBroker(ctx, cluster.WithBrokerJVMOpts(opts...), cluster.WithBrokerJava(e.brokerJava(arm)),
		cluster.WithBrokerNice(cfg.BrokerNice)); err != nil {
		return coldstart.Restart{}, nil, fmt.Errorf("start broker: %w", err)
	}
	started := time.Now()
	pid := e.Cluster.BrokerPID()

	readyAt, err := e.waitReady(ctx, readyURL, sc)
	if err != nil {
		return coldstart.Restart{}, nil, err
	}
	atReady := e.snapshot(pid)

	// Counters at the window edges, on the Ready clock.
	at := []time.Duration{cfg.Cold, cfg.WarmStart, cfg.WarmEnd}
	tr, snaps, err := e.loadWithSnapshots(ctx, pid, readyAt, at, rate, cfg.WarmEnd)
	if err != nil {
		return coldstart.Restart{}, tr, err
	}
	marks := map[string]snapshot{"cold_end": snaps[0], "warm_start": snaps[1], "warm_end": snaps[2]}
	if e.Cluster.BrokerPID() != pid {
		return coldstart.Restart{}, tr, fmt.Errorf("the broker JVM (pid %d) died under load; see %s", pid, e.Cluster.LogPath("broker"))
	}

	res := coldstart.Summarise(tr, coldstart.Window{Start: 0, End: cfg.Cold}, coldstart.Window{Start: cfg.WarmStart, End: cfg.WarmEnd})
	res.ReadySeconds = readyAt.Sub(started).Seconds()
	res.HealthySeconds = res.ReadySeconds
	if aotLog != "" {
		res.AOTCache = readAOTUse(aotLog)
		if res.AOTCache.State != coldstart.AOTUsed {
			e.cfg.Logger.Warn("the broker did not use its AOT cache", "arm", arm, "restart", n, "state", res.AOTCache.State, "log", aotLog)
		}
	}
	if sc != nil {
		st, err := sc.status(ctx)
		if err != nil {
			return res, tr, err
		}
		res.Warmup = st.info()
		res.WarmupSeconds = st.DurationSeconds
		if !st.StartedAt.IsZero() {
			res.HealthySeconds = st.StartedAt.Sub(started).Seconds()
		}
		if st.Outcome == "" || st.Outcome == "failed" {
			e.cfg.Logger.Warn("sidecar warmup did not succeed", "arm", arm, "restart", n, "outcome", st.Outcome, "last_error", st.LastError)
		}
	}
	d := &coldstart.Diagnostics{}
	d.PreReady = coldstart.WindowDiag{Seconds: atReady.at.Sub(started).Seconds(), BrokerCPUSeconds: atReady.broker}
	if t := atReady.threads; atReady.threadsErr == nil {
		d.PreReady.BrokerCompilerCPUSeconds, d.PreReady.BrokerGCCPUSeconds = t.Compiler, t.GC
	}
	if j := atReady.jvm; atReady.jvmErr == nil { // a fresh JVM: its counters are the pre-Ready figures
		d.PreReady.JITCompiles, d.PreReady.JITSeconds = j.Compiles, j.CompileSeconds
		d.PreReady.GCPauses, d.PreReady.GCSeconds, d.PreReady.SafepointSeconds = j.GCPauses, j.GCSeconds, j.SafepointSecs
	}
	d.Cold = diff(atReady, marks["cold_end"], &d.Notes, "cold")
	d.Warm = diff(marks["warm_start"], marks["warm_end"], &d.Notes, "warm")
	if lines, err := brokerQueryLog(e.Cluster.LogPath("broker"), readyAt); err != nil {
		d.Notes = append(d.Notes, "broker query log: "+err.Error())
	} else {
		d.PreReady.BrokerLog = queryLogStats(lines, started, readyAt)
		d.Cold.BrokerLog = queryLogStats(lines, readyAt, readyAt.Add(cfg.Cold))
		d.Warm.BrokerLog = queryLogStats(lines, readyAt.Add(cfg.WarmStart), readyAt.Add(cfg.WarmEnd))
	}
	res.Diagnostics = d
	return res, tr, nil
}

// loadWithSnapshots runs the mix open loop at rate for d from now and reads the broker's
// counters at t0+at[i]. The load can end a few ms before the last mark (its last arrival is
// due just before it), so the marks are waited for; on an error the pending ones are dropped.
func (e *Env) loadWithSnapshots(ctx context.Context, pid int, t0 time.Time, at []time.Duration, rate float64, d time.Duration) (*coldstart.Trace, []snapshot, error) {
	snaps := make([]snapshot, len(at))
	var wg sync.WaitGroup
	timers := make([]*time.Timer, 0, len(at))
	for i, a := range at {
		wg.Add(1)
		timers = append(timers, time.AfterFunc(time.Until(t0.Add(a)), func() {
			defer wg.Done()
			snaps[i] = e.snapshot(pid)
		}))
	}
	bc := coldstart.NewBrokerClient(e.Cluster.BrokerURL(), nil)
	defer bc.Close()
	tr, err := coldstart.RunLoad(ctx, coldstart.LoadConfig{Rate: rate, Duration: d, Timeout: e.cfg.Timeout}, e.cfg.Mix, bc.Send)
	if err != nil {
		for _, t := range timers {
			if t.Stop() {
				wg.Done()
			}
		}
	}
	wg.Wait()
	return tr, snaps, err
}

// waitReady waits for readyURL to answer 200, failing early if the sidecar or the broker dies.
func (e *Env) waitReady(ctx context.Context, readyURL string, sc *sidecar) (time.Time, error) {
	wctx, cancel := context.WithTimeoutCause(ctx, readyTimeout, fmt.Errorf("not ready after %s", readyTimeout))
	defer cancel()
	watch, stopWatch := context.WithCancelCause(wctx)
	defer stopWatch(nil)
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-watch.Done():
				return
			case <-t.C:
			}
			if sc != nil && sc.exited() {
				stopWatch(fmt.Errorf("%w; see %s", errSidecarDied, sc.log.Name()))
				return
			}
			if e.Cluster.BrokerPID() == 0 {
				stopWatch(fmt.Errorf("the broker JVM exited while starting; see %s", e.Cluster.LogPath("broker")))
				return
			}
		}
	}()
	at, err := coldstart.WaitReady(watch, readyURL, false)
	if err != nil {
		if cause := context.Cause(watch); cause != nil {
			return at, fmt.Errorf("waiting for Ready at %s: %w", readyURL, cause)
		}
		return at, err
	}
	return at, nil
}

// snapshot is one reading of every counter the diagnostics use.
type snapshot struct {
	at                        time.Time
	ok                        bool
	jvm                       JVMCounters
	jvmErr                    error
	threads                   BrokerThreadCPU
	threadsErr                error
	broker, others, self      float64
	machineBusy, machineTotal float64
	err                       error
}

func (e *Env) snapshot(brokerPID int) snapshot {
	s := snapshot{at: time.Now(), ok: true}
	s.jvm, s.jvmErr = ReadJVMCounters(brokerPID)
	s.broker, _ = CPUSeconds(brokerPID)
	s.threads, s.threadsErr = ThreadCPU(brokerPID)
	for _, pid := range e.Cluster.PIDs() {
		if pid == brokerPID {
			continue
		}
		if v, err := CPUSeconds(pid); err == nil {
			s.others += v
		}
	}
	s.self, _ = CPUSeconds(0)
	s.machineBusy, s.machineTotal, _ = MachineCPU()
	return s
}

func diff(a, b snapshot, notes *[]string, name string) coldstart.WindowDiag {
	if !a.ok || !b.ok {
		*notes = append(*notes, name+": a window edge was not reached")
		return coldstart.WindowDiag{}
	}
	d := coldstart.WindowDiag{Seconds: b.at.Sub(a.at).Seconds()}
	if a.jvmErr == nil && b.jvmErr == nil {
		j := b.jvm.Sub(a.jvm)
		d.JITCompiles, d.JITSeconds = j.Compiles, j.CompileSeconds
		d.GCPauses, d.GCSeconds, d.SafepointSeconds = j.GCPauses, j.GCSeconds, j.SafepointSecs
	} else if err := cmp.Or(a.jvmErr, b.jvmErr); err != nil {
		*notes = append(*notes, name+": "+err.Error())
	}
	d.BrokerCPUSeconds = b.broker - a.broker
	if a.threadsErr == nil && b.threadsErr == nil {
		t := b.threads.Sub(a.threads)
		d.BrokerCompilerCPUSeconds, d.BrokerGCCPUSeconds = t.Compiler, t.GC
	} else if err := cmp.Or(a.threadsErr, b.threadsErr); err != nil {
		*notes = append(*notes, name+": "+err.Error())
	}
	d.OthersCPUSeconds = b.others - a.others
	d.LoadCPUSeconds = b.self - a.self
	d.MachineCPUSeconds = b.machineBusy - a.machineBusy
	if t := b.machineTotal - a.machineTotal; t > 0 {
		d.MachineBusy = d.MachineCPUSeconds / t
	}
	return d
}
