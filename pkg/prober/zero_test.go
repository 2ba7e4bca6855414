package prober

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// zeroCluster is the three-server fake with a client over it, nothing else set.
func zeroCluster(t *testing.T) (*pinot.Client, *fakepinot.Broker) {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	t.Cleanup(b.Close)
	t.Cleanup(c.Close)
	hc := pinot.DefaultHTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	return pinot.New(pinot.Options{BrokerURL: b.URL(), ControllerURL: c.URL(), HTTPClient: hc}), b
}

// A Prober with only a broker, a catalog and a floor: no observer, no clock, zero
// concurrency, probe timeout and table cap. It must warm with the defaults, not
// panic or idle until its deadline.
func TestZeroValuesTakeDefaults(t *testing.T) {
	cl, b := zeroCluster(t)
	p := &Prober{Broker: cl, Catalog: cl, Settings: Settings{MinIterations: 20, NoScatterProbes: 3}}
	// A deadline well past DefaultProbeTimeout, so the probe timeout is the default's.
	rep := p.Run(context.Background(), time.Now().Add(time.Minute))
	if rep.Outcome != OutcomeWarm || rep.Succeeded < 20 {
		t.Fatalf("outcome %s, %d succeeded (err %v); want warm with the floor reached", rep.Outcome, rep.Succeeded, rep.Err)
	}
	if n := b.QueriesOf(NoScatterSQL); n != 3 {
		t.Errorf("no-scatter probes = %d, want 3", n)
	}
	// DefaultMaxTables (5) is enough to cover all three servers.
	if c := rep.Plan.Coverage; c == nil || len(rep.Plan.Tables) == 0 || len(c.Uncovered) != 0 {
		t.Errorf("plan %+v: want tables covering every server", rep.Plan)
	}
	want := fmt.Sprintf("timeoutMs=%d", DefaultProbeTimeout.Milliseconds())
	if opts := b.LastQueryOptions(); !strings.Contains(opts, want) {
		t.Errorf("queryOptions %q lack %s (DefaultProbeTimeout)", opts, want)
	}
}

// A zero plan.Planner's settings plan the default probe with DefaultMaxTables.
func TestPlannerZeroSettings(t *testing.T) {
	cl, _ := zeroCluster(t)
	p, err := plan.Planner{Catalog: cl}.Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Custom || len(p.Tables) == 0 || len(p.Queries) == 0 {
		t.Fatalf("plan %+v: want the default probe over cover tables", p)
	}
}

// Without a broker, or without a catalog for the default probe, a run cannot
// probe anything: it fails at once with the reason, it does not wait out the
// budget.
func TestMissingDependenciesFailTheRun(t *testing.T) {
	cl, _ := zeroCluster(t)
	cases := []struct {
		name string
		p    *Prober
		want error
	}{
		{"no broker", &Prober{Catalog: cl}, ErrNoBroker},
		{"no catalog for the default probe", &Prober{Broker: cl}, plan.ErrNoCatalog},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.p.Run(context.Background(), time.Now().Add(3*time.Second))
			if rep.Outcome != OutcomeFailed || !errors.Is(rep.Err, tc.want) {
				t.Fatalf("outcome %s, err %v; want failed with %v", rep.Outcome, rep.Err, tc.want)
			}
		})
	}
	// Custom queries need no catalog.
	p := &Prober{Broker: cl, Settings: Settings{Queries: []string{"SELECT 1"}, MinIterations: 5}}
	if rep := p.Run(context.Background(), time.Now().Add(3*time.Second)); rep.Outcome != OutcomeWarm {
		t.Errorf("custom queries without a catalog: outcome %s (err %v), want warm", rep.Outcome, rep.Err)
	}
}

// Each zero field on its own, the others set: every one used to leave the run
// probing nothing until its deadline, or panic.
func TestEachZeroFieldStillWarms(t *testing.T) {
	cl, _ := zeroCluster(t)
	full := func() Prober {
		return Prober{Broker: cl, Observer: &recorder{}, Now: time.Now,
			Catalog: cl, Settings: Settings{MinIterations: 20, MaxTables: 5, Concurrency: 2, ProbeTimeout: time.Second}}
	}
	for name, zero := range map[string]func(*Prober){
		"MaxTables":    func(p *Prober) { p.Settings.MaxTables = 0 },
		"Concurrency":  func(p *Prober) { p.Settings.Concurrency = 0 },
		"ProbeTimeout": func(p *Prober) { p.Settings.ProbeTimeout = 0 },
		"Observer":     func(p *Prober) { p.Observer = nil },
		"Now":          func(p *Prober) { p.Now = nil },
	} {
		t.Run(name, func(t *testing.T) {
			p := full()
			zero(&p)
			rep := p.Run(context.Background(), time.Now().Add(5*time.Second))
			if rep.Outcome != OutcomeWarm {
				t.Errorf("outcome %s, %d succeeded, err %v; want warm", rep.Outcome, rep.Succeeded, rep.Err)
			}
		})
	}
}
