package bench

import (
	"context"
	"fmt"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// prewarmServers sends the mix to the freshly started cluster before its first
// broker restart, as the calibration does when the rate is measured: a study
// with a given rate otherwise met servers that had never run the mix, so its
// first restart measured cold servers too (every 5-restart study on the 1.5.1
// cluster on 2026-12-01 stormed on its first restart only, in whichever arm
// came first). The study is of a broker restarting among warm servers, as in a
// rolling restart. The note it returns goes into the study's JSON.
func (e *Env) prewarmServers(ctx context.Context) string {
	bc := coldstart.NewBrokerClient(e.Cluster.BrokerURL(), nil)
	defer bc.Close()
	d := 3 * e.cfg.CalibrationStep
	st := coldstart.ClosedLoop(ctx, 4, d, e.cfg.Timeout, e.cfg.Mix, bc.Send)
	note := fmt.Sprintf("servers warmed before the first restart (rate given, so no calibration did): "+
		"the mix from 4 clients for %s, %d queries, %d errors, p99 %.1f ms", d, st.Queries, st.Errors, st.P99Ms)
	e.cfg.Logger.Info("servers warmed before the first restart", "seconds", d.Seconds(), "queries", st.Queries,
		"errors", st.Errors, "p99_ms", st.P99Ms)
	return note
}
