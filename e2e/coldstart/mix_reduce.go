package coldstart

import (
	"fmt"
	"time"
)

// ReduceMix is where the broker's own work is largest, so where its compiler should matter most
// (issue 28 asks what C1 only costs there): group-bys with tens of thousands of groups merged
// and trimmed at the broker, big ORDER BY results, and wide answers of thousands of rows the
// broker turns into JSON. Every query is bounded by a recent ts range of the e2e benchmark
// table (86,400 rows a day; user_id has 100,000 values, so a day's group-by by user holds
// ~58,000 groups).
func ReduceMix(table string) Mix { return buildMix(MixReduce, mixRounds, reduceTemplates(table)) }

func reduceTemplates(t string) []template {
	return []template{
		{"groupby_users", 2, func(p *params) string {
			from, to := p.recent([]time.Duration{6 * time.Hour, 24 * time.Hour}[p.intn(2)])
			return fmt.Sprintf(`SELECT user_id, COUNT(*), SUM(amount), MAX(latency_ms) FROM %s WHERE ts >= %d AND ts < %d `+
				`GROUP BY user_id ORDER BY SUM(amount) DESC LIMIT 1000`, t, from, to)
		}},
		{"groupby_user_type", 1, func(p *params) string {
			from, to := p.recent(12 * time.Hour)
			return fmt.Sprintf(`SELECT user_id, event_type, COUNT(*), AVG(amount) FROM %s WHERE ts >= %d AND ts < %d AND device <> '%s' `+
				`GROUP BY user_id, event_type ORDER BY COUNT(*) DESC, user_id LIMIT 2000`, t, from, to, p.pick(BenchData.Devices))
		}},
		{"order_by_big", 2, func(p *params) string {
			from, to := p.recent([]time.Duration{6 * time.Hour, 24 * time.Hour}[p.intn(2)])
			return fmt.Sprintf(`SELECT event_id, user_id, country, device, event_type, amount, latency_ms, ts FROM %s `+
				`WHERE ts >= %d AND ts < %d ORDER BY amount DESC, event_id LIMIT 5000`, t, from, to)
		}},
		{"wide_rows", 1, func(p *params) string {
			from, to := p.recent(24 * time.Hour)
			return fmt.Sprintf(`SELECT * FROM %s WHERE country = '%s' AND ts >= %d AND ts < %d LIMIT 5000`,
				t, p.pick(BenchData.Countries), from, to)
		}},
		{"distinct_pairs", 1, func(p *params) string {
			from, to := p.recent(6 * time.Hour)
			return fmt.Sprintf(`SELECT DISTINCT user_id, device FROM %s WHERE ts >= %d AND ts < %d LIMIT 5000`, t, from, to)
		}},
		{"percentile_cube", 1, func(p *params) string {
			from, to := p.recent(24 * time.Hour)
			return fmt.Sprintf(`SELECT country, device, event_type, PERCENTILETDIGEST(latency_ms, 99), DISTINCTCOUNTHLL(user_id), COUNT(*) `+
				`FROM %s WHERE ts >= %d AND ts < %d GROUP BY country, device, event_type ORDER BY COUNT(*) DESC LIMIT 500`, t, from, to)
		}},
	}
}
