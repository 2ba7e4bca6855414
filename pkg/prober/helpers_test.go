package prober

import (
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

const ms = time.Millisecond

// recorder is an Observer that keeps everything it hears.
type recorder struct {
	mu      sync.Mutex
	plans   []Plan
	retries []error
	events  []event.Event // KindProbed
	dropped map[string]string
	windows []event.ShapeState
	jit     []event.JITState
	jitErrs []error
	warm    []engineWarm
	engines []Engine
	floors  [][2]int64 // multi-stage, single-stage

	jitFails []int                 // the streak of each failed JIT read
	paced    map[string][2]float64 // table → quota, rate
}

type engineWarm struct {
	multiStage bool
	lent       int
}

// Observe keeps the event by its kind.
func (r *recorder) Observe(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case event.KindEngineFloors:
		r.floors = append(r.floors, [2]int64{e.Floors.MultiStage, e.Floors.SingleStage})
	case event.KindEngineFound:
		r.engines = append(r.engines, e.Engine)
	case event.KindEngineWarm:
		r.warm = append(r.warm, engineWarm{e.MultiStage, e.Lent})
	case event.KindShapeWindow:
		r.windows = append(r.windows, e.Shape)
	case event.KindJITRead:
		r.jit = append(r.jit, e.JIT)
	case event.KindJITUnavailable:
		r.jitErrs = append(r.jitErrs, e.Err)
	case event.KindJITReadFailed:
		r.jitFails = append(r.jitFails, e.InARow)
	case event.KindPlanned:
		r.plans = append(r.plans, e.Plan)
	case event.KindPlanRetry:
		r.retries = append(r.retries, e.Err)
	case event.KindProbed:
		r.events = append(r.events, e)
	case event.KindDropped:
		if r.dropped == nil {
			r.dropped = map[string]string{}
		}
		r.dropped[e.SQL] = e.Reason
	case event.KindPaced:
		if r.paced == nil {
			r.paced = map[string][2]float64{}
		}
		r.paced[e.Table] = [2]float64{e.Quota, e.Rate}
	}
}

func (r *recorder) count(step string, class pinot.Class) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Step == step && e.Result.Class == class {
			n++
		}
	}
	return n
}

// cluster starts the three-server fake and returns a prober over it. The fake
// plays a broker without the multi-stage engine and a controller without
// schemas, so these tests check the run's mechanics over the LIMIT 1 plan, one
// query per leg; plan/schema_test.go plans over the fake's defaults.
func cluster(t *testing.T, s Settings) (*Prober, *fakepinot.Broker, *fakepinot.Controller, *recorder) {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	b.SetMultiStage(fakepinot.MultiStageAbsent)
	c.SetSchemaAnswer(fakepinot.SchemaNotFound)
	t.Cleanup(b.Close)
	t.Cleanup(c.Close)
	if s.Concurrency == 0 {
		s.Concurrency = 1
	}
	if s.MaxTables == 0 {
		s.MaxTables = 5
	}
	if s.ProbeTimeout == 0 {
		s.ProbeTimeout = time.Second
	}
	cl := pinot.New(pinot.Options{BrokerURL: b.URL(), ControllerURL: c.URL()})
	rec := &recorder{}
	return &Prober{Broker: cl, Catalog: cl, Settings: s, Observer: rec}, b, c, rec
}
