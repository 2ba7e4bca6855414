package selector

import "sort"

// Routing is a broker routing table as Pinot's /debug/routingTable/{t} returns it:
// table name with type → server instance id → segments.
type Routing map[string]map[string][]string

// Table is one raw table as this broker routes it.
type Table struct {
	// Name is the raw table name ("airlines").
	Name string `json:"name"`
	// Legs are the typed physical tables that have at least one server, sorted
	// ("airlines_OFFLINE", "airlines_REALTIME"): a hybrid table is probed per leg.
	Legs []string `json:"legs"`
	// Servers is the sorted union of the servers of all legs.
	Servers []string `json:"servers"`
}

// TableFromRouting turns the routing answer for one raw table into a Table.
// Legs with no server (routing exists, no segments yet) are left out: probing them
// scatters to nobody.
func TableFromRouting(name string, rt Routing) Table {
	t := Table{Name: name}
	seen := map[string]bool{}
	for leg, servers := range rt {
		if len(servers) == 0 {
			continue
		}
		t.Legs = append(t.Legs, leg)
		for s := range servers {
			if !seen[s] {
				seen[s] = true
				t.Servers = append(t.Servers, s)
			}
		}
	}
	sort.Strings(t.Legs)
	sort.Strings(t.Servers)
	return t
}
