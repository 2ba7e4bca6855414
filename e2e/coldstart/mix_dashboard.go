package coldstart

import (
	"fmt"
	"time"
)

// DashboardMix is what a dashboard sends over the e2e benchmark table: time-bucketed series
// over recent ranges, top-N group-bys ordered by an aggregate, distinct counts and
// percentiles, every query bounded by a ts range (ts is sorted in every segment, so the
// range is cheap and the group-by and reduce work is the broker's real share).
func DashboardMix(table string) Mix {
	return buildMix(MixDashboard, mixRounds, dashboardTemplates(table))
}

func dashboardTemplates(t string) []template {
	return []template{
		{"timeseries_hourly", 3, func(p *params) string {
			from, to := p.recent([]time.Duration{6 * time.Hour, 12 * time.Hour, 24 * time.Hour}[p.intn(3)])
			return fmt.Sprintf(`SELECT DATETRUNC('hour', ts), COUNT(*), SUM(amount) FROM %s WHERE ts >= %d AND ts < %d `+
				`GROUP BY DATETRUNC('hour', ts) ORDER BY DATETRUNC('hour', ts) LIMIT 48`, t, from, to)
		}},
		{"timeseries_daily_by_type", 1, func(p *params) string {
			from, to := p.recent(7 * 24 * time.Hour)
			return fmt.Sprintf(`SELECT DATETRUNC('day', ts), event_type, COUNT(*) FROM %s WHERE ts >= %d AND ts < %d AND device = '%s' `+
				`GROUP BY DATETRUNC('day', ts), event_type ORDER BY DATETRUNC('day', ts), COUNT(*) DESC LIMIT 100`,
				t, from, to, p.pick(BenchData.Devices))
		}},
		{"top_n", 2, func(p *params) string {
			from, to := p.recent(24 * time.Hour)
			return fmt.Sprintf(`SELECT country, device, SUM(amount), COUNT(*) FROM %s WHERE event_type = '%s' AND ts >= %d AND ts < %d `+
				`GROUP BY country, device ORDER BY SUM(amount) DESC LIMIT 10`, t, p.pick([]string{"purchase", "add_to_cart"}), from, to)
		}},
		{"distinct_users", 2, func(p *params) string {
			from, to := p.recent(24 * time.Hour)
			return fmt.Sprintf(`SELECT device, DISTINCTCOUNTHLL(user_id), DISTINCTCOUNT(country) FROM %s WHERE ts >= %d AND ts < %d `+
				`GROUP BY device ORDER BY DISTINCTCOUNTHLL(user_id) DESC LIMIT 10`, t, from, to)
		}},
		{"percentiles", 2, func(p *params) string {
			from, to := p.recent([]time.Duration{6 * time.Hour, 24 * time.Hour}[p.intn(2)])
			return fmt.Sprintf(`SELECT PERCENTILETDIGEST(latency_ms, 95), PERCENTILE(latency_ms, 50), AVG(latency_ms), MAX(latency_ms) `+
				`FROM %s WHERE country = '%s' AND ts >= %d AND ts < %d`, t, p.pick(BenchData.Countries), from, to)
		}},
		{"percentile_by_type", 1, func(p *params) string {
			from, to := p.recent([]time.Duration{time.Hour, 6 * time.Hour}[p.intn(2)])
			return fmt.Sprintf(`SELECT event_type, PERCENTILEEST(latency_ms, 99), COUNT(*) FROM %s WHERE ts >= %d AND ts < %d `+
				`GROUP BY event_type ORDER BY PERCENTILEEST(latency_ms, 99) DESC LIMIT 10`, t, from, to)
		}},
	}
}
