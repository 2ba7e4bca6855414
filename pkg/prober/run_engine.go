package prober

import (
	"context"
	"fmt"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// findEngine starts finding the run's engine with at most a fifth of the time
// left (a broker that never answers must leave the budget to the probes) and
// returns where the answer will come, once. It runs beside the planning: on a
// cold 1.5.1 broker the first multi-stage query takes ~3 s to answer, the plan
// ~1.5 s, and the single-stage probes need not wait for the other engine.
func (r *run) findEngine(ctx context.Context) <-chan Engine {
	out := make(chan Engine, 1)
	dctx, cancel := context.WithTimeout(ctx, max(0, r.deadline.Sub(r.now()))/5)
	go func() {
		defer cancel()
		e := Engine{Found: "finding the multi-stage engine failed"}
		defer func() { out <- e }()
		defer func() {
			if v := recover(); v != nil {
				e.Found = fmt.Sprintf("finding the multi-stage engine panicked: %v", v)
			}
		}()
		e = plan.FindEngine(dctx, r.sched.Paced(), r.s.Plan()) // its query under the run's cap
	}()
	return out
}

// mayProbeMultiStage: the run may send multi-stage probes of its own, so the
// plan is made with them until the engine is known.
func (r *run) mayProbeMultiStage() bool {
	return r.s.MultiStage != EngineOff && len(r.s.Queries) == 0 && !r.s.Plan().NothingToWarm
}

// engineUnknown is the plan's engine while the detection probe has no answer.
const engineUnknown = "not known yet: waiting for the first multi-stage answer"

// awaitEngine waits for the engine within ctx.
func awaitEngine(ctx context.Context, found <-chan Engine) Engine {
	select {
	case e := <-found:
		return e
	case <-ctx.Done():
		return Engine{Found: "the budget ran out before the multi-stage engine was found"}
	}
}
