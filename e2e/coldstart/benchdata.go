package coldstart

import "time"

// BenchData is what the named mixes know of the e2e bench_events table (schema
// e2e/testdata/tables/bench_events.schema.json, rows from e2e/cluster/data.go): the values
// their filters use, so every filter selects real rows. A test in e2e/cluster checks them
// against the rows it loads.
var BenchData = struct {
	Countries, Devices, EventTypes []string
	// Users: user_id is in [0, Users). Events: event_id is in [0, Events) for the default
	// 1,000,000 rows.
	Users, Events int
	// EpochMs is ts of event 0; event i is EpochMs + i s. NowMs is "now" for the mixes'
	// recent ranges: inside the last day of the default rows, so the last 24 h hold data.
	EpochMs, NowMs int64
}{
	Countries:  []string{"US", "DE", "FR", "GB", "IN", "BR", "JP", "CN", "CA", "AU"},
	Devices:    []string{"ios", "android", "web", "tv", "desktop"},
	EventTypes: []string{"view", "click", "search", "add_to_cart", "purchase", "login", "logout", "share", "like", "comment"},
	Users:      100_000,
	Events:     1_000_000,
	EpochMs:    1767225600000,                                                   // 2026-01-01T00:00:00Z
	NowMs:      1767225600000 + (11*24*time.Hour + 12*time.Hour).Milliseconds(), // 2026-01-12T12:00:00Z
}
