package fakepinot

// ThreeServers is routing over three servers: an OFFLINE table on server 1, a
// REALTIME table on server 2, a hybrid table whose legs sit on servers 2 and 3,
// and a table whose routing exists with no segments.
func ThreeServers() map[string]map[string][]string {
	return map[string]map[string][]string{
		"orders_OFFLINE":  {"Server_10.0.0.1_8098": {"orders_0"}},
		"clicks_REALTIME": {"Server_10.0.0.2_8098": {"clicks__0__0"}},
		"events_OFFLINE":  {"Server_10.0.0.3_8098": {"events_0"}},
		"events_REALTIME": {"Server_10.0.0.2_8098": {"events__0__0"}},
		"empty_OFFLINE":   {},
	}
}

// ThreeServerTables are the raw names the controller lists for ThreeServers,
// plus "other" that this broker does not route (another tenant).
func ThreeServerTables() []string {
	return []string{"clicks", "empty", "events", "orders", "other"}
}
