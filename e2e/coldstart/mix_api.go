package coldstart

import (
	"fmt"
	"time"
)

// APIMix is what an application's API sends over the e2e benchmark table: point lookups by
// event_id and user_id (IN lists), a user's latest events (ORDER BY ts DESC LIMIT 20) and
// small filtered COUNTs. Each touches few rows: the broker's compile, routing and response
// path is most of the cost.
func APIMix(table string) Mix { return buildMix(MixAPI, mixRounds, apiTemplates(table)) }

func apiTemplates(t string) []template {
	return []template{
		{"event_lookup", 3, func(p *params) string {
			return fmt.Sprintf(`SELECT event_id, user_id, event_type, device, amount, ts FROM %s WHERE event_id IN (%s) LIMIT 10`,
				t, ints(p.distinct(5, BenchData.Events)))
		}},
		{"user_feed", 3, func(p *params) string {
			return fmt.Sprintf(`SELECT event_id, event_type, device, amount, ts FROM %s WHERE user_id = %d ORDER BY ts DESC LIMIT 20`,
				t, p.intn(BenchData.Users))
		}},
		{"users_in", 1, func(p *params) string {
			return fmt.Sprintf(`SELECT user_id, event_type, amount, ts FROM %s WHERE user_id IN (%s) AND event_type IN ('purchase', 'add_to_cart') `+
				`ORDER BY ts DESC LIMIT 20`, t, ints(p.distinct(4, BenchData.Users)))
		}},
		{"user_count", 2, func(p *params) string {
			return fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE user_id = %d AND event_type = '%s'`,
				t, p.intn(BenchData.Users), p.pick(BenchData.EventTypes))
		}},
		{"recent_feed", 1, func(p *params) string {
			to := BenchData.NowMs - int64(p.intn(360))*time.Minute.Milliseconds()
			return fmt.Sprintf(`SELECT event_id, user_id, event_type, amount FROM %s WHERE device = '%s' AND ts >= %d AND ts < %d `+
				`ORDER BY ts DESC LIMIT 20`, t, p.pick(BenchData.Devices), to-(5*time.Minute).Milliseconds(), to)
		}},
		{"count_recent", 2, func(p *params) string {
			from, to := p.recent(time.Hour)
			return fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE country = '%s' AND device = '%s' AND ts >= %d AND ts < %d`,
				t, p.pick(BenchData.Countries), p.pick(BenchData.Devices), from, to)
		}},
	}
}
