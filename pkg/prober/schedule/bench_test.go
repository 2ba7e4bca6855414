package schedule

import (
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// BenchmarkPacerRound measures the pacer's own cost per probe on the hot path: a
// round of 8 picked from two tables, one under a quota far above the probe rate
// (so it never holds a probe back), and each probe's reserve.
func BenchmarkPacerRound(b *testing.B) {
	queries := []string{`SELECT * FROM "a_OFFLINE" LIMIT 1`, `SELECT * FROM "b_OFFLINE" LIMIT 1`}
	tables := map[string][]string{}
	for _, q := range queries {
		tables[q] = TypedCandidates(sqltext.Tables(q))
	}
	p := newPacer(time.Now, tables)
	p.limits["a_OFFLINE"] = rate.NewLimiter(1e12, 1)
	rot := selector.NewRotation(queries, 0)
	b.ReportAllocs()
	for b.Loop() {
		batch, _ := p.pick(rot, 8, len(queries))
		for _, q := range batch {
			p.reserve(q)
		}
	}
}
