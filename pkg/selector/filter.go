package selector

// Routable keeps the requested tables this broker can route, in request order, and
// returns the others as dropped. A table counts as routable when routes has it with
// at least one server.
func Routable(requested []string, routes map[string]Table) (kept []Table, dropped []string) {
	for _, name := range requested {
		if t, ok := routes[name]; ok && len(t.Servers) > 0 {
			kept = append(kept, t)
			continue
		}
		dropped = append(dropped, name)
	}
	return kept, dropped
}

// Legs flattens tables into their typed legs, in table order: the probe targets.
func Legs(tables []Table) []string {
	var out []string
	for _, t := range tables {
		out = append(out, t.Legs...)
	}
	return out
}
