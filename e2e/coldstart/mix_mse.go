package coldstart

import (
	"fmt"
	"time"
)

// MSEMix runs on the multi-stage engine (Pinot ≥ 1.0), each query sent as
// "SET useMultistageEngine=true; ...": a self-join of filtered rows, window functions (one
// OVER specification per query), a group-by and a CTE, over recent ts ranges of the e2e
// benchmark table so the intermediate stages stay small.
func MSEMix(table string) Mix { return buildMix(MixMSE, mixRounds, mseTemplates(table)) }

func mseTemplates(t string) []template {
	return []template{
		{"mse_self_join", 2, func(p *params) string {
			from, to := p.recent([]time.Duration{6 * time.Hour, 24 * time.Hour}[p.intn(2)])
			return multiStage(fmt.Sprintf(`SELECT p.country, COUNT(*), SUM(p.amount) `+
				`FROM (SELECT user_id, country, amount FROM %[1]s WHERE event_type = 'purchase' AND ts >= %[2]d AND ts < %[3]d) AS p `+
				`JOIN (SELECT DISTINCT user_id FROM %[1]s WHERE event_type = '%[4]s' AND ts >= %[2]d AND ts < %[3]d) AS v ON p.user_id = v.user_id `+
				`GROUP BY p.country ORDER BY COUNT(*) DESC LIMIT 10`, t, from, to, p.pick([]string{"view", "click", "add_to_cart"})))
		}},
		{"mse_window_topn", 2, func(p *params) string {
			from, to := p.recent(6 * time.Hour)
			return multiStage(fmt.Sprintf(`SELECT country, user_id, amount, rn `+
				`FROM (SELECT country, user_id, amount, ROW_NUMBER() OVER (PARTITION BY country ORDER BY amount DESC) AS rn `+
				`FROM %s WHERE event_type = '%s' AND ts >= %d AND ts < %d) AS ranked WHERE rn <= 3 ORDER BY country, rn LIMIT 100`,
				t, p.pick([]string{"purchase", "add_to_cart"}), from, to))
		}},
		{"mse_window_share", 1, func(p *params) string {
			from, to := p.recent(24 * time.Hour)
			return multiStage(fmt.Sprintf(`SELECT device, event_type, cnt, SUM(cnt) OVER (PARTITION BY device) AS device_total `+
				`FROM (SELECT device, event_type, COUNT(*) AS cnt FROM %s WHERE country = '%s' AND ts >= %d AND ts < %d GROUP BY device, event_type) AS g `+
				`ORDER BY device, cnt DESC LIMIT 60`, t, p.pick(BenchData.Countries), from, to))
		}},
		{"mse_group_by", 2, func(p *params) string {
			from, to := p.recent([]time.Duration{6 * time.Hour, 24 * time.Hour}[p.intn(2)])
			c := p.distinct(2, len(BenchData.Countries))
			return multiStage(fmt.Sprintf(`SELECT event_type, device, COUNT(*), AVG(latency_ms), MAX(amount) FROM %s `+
				`WHERE country IN (%s) AND ts >= %d AND ts < %d GROUP BY event_type, device ORDER BY COUNT(*) DESC LIMIT 20`,
				t, quoted(BenchData.Countries[c[0]], BenchData.Countries[c[1]]), from, to))
		}},
		{"mse_cte", 1, func(p *params) string {
			from, to := p.recent(24 * time.Hour)
			return multiStage(fmt.Sprintf(`WITH spend AS (SELECT user_id, SUM(amount) AS spent, COUNT(*) AS purchases FROM %s `+
				`WHERE event_type = 'purchase' AND ts >= %d AND ts < %d GROUP BY user_id) `+
				`SELECT COUNT(*), AVG(spent), MAX(purchases) FROM spend WHERE spent > %d`, t, from, to, []int{1000, 5000, 9000}[p.intn(3)]))
		}},
	}
}
