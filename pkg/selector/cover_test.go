package selector

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// tbl is a single-leg OFFLINE table on the given servers.
func tbl(name string, servers ...string) Table {
	t := Table{Name: name, Servers: servers}
	if len(servers) > 0 {
		t.Legs = []string{name + "_OFFLINE"}
	}
	return t
}

func names(ts []Table) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestCover(t *testing.T) {
	cases := []struct {
		name      string
		tables    []Table
		maxTables int
		chosen    []string
		universe  []string
		uncovered []string
	}{
		{
			name:      "covers every server with the fewest tables",
			tables:    []Table{tbl("a", "s1"), tbl("b", "s2"), tbl("c", "s1", "s2", "s3")},
			maxTables: 5,
			chosen:    []string{"c"},
			universe:  []string{"s1", "s2", "s3"},
			uncovered: []string{},
		},
		{
			name: "takes the largest gain first, then only tables that add a server",
			tables: []Table{
				tbl("a", "s1", "s2"), tbl("b", "s2", "s3", "s4"), tbl("c", "s4", "s5"), tbl("d", "s1"),
			},
			maxTables: 5,
			// b (3 new) → a (s1) and c (s5) both add one: a wins the tie by name → c; d adds nothing.
			chosen:    []string{"b", "a", "c"},
			universe:  []string{"s1", "s2", "s3", "s4", "s5"},
			uncovered: []string{},
		},
		{
			name:      "skips a table whose servers are already covered",
			tables:    []Table{tbl("all", "s1", "s2"), tbl("redundant", "s2"), tbl("z", "s3")},
			maxTables: 5,
			chosen:    []string{"all", "z"},
			universe:  []string{"s1", "s2", "s3"},
			uncovered: []string{},
		},
		{
			name:      "ties go to the first name",
			tables:    []Table{tbl("b", "s1"), tbl("a", "s1")},
			maxTables: 5,
			chosen:    []string{"a"},
			universe:  []string{"s1"},
			uncovered: []string{},
		},
		{
			name:      "stops at maxTables and reports the rest uncovered, sorted",
			tables:    []Table{tbl("a", "s9", "s8"), tbl("b", "s3"), tbl("c", "s1"), tbl("d", "s2")},
			maxTables: 2,
			chosen:    []string{"a", "b"},
			universe:  []string{"s1", "s2", "s3", "s8", "s9"},
			uncovered: []string{"s1", "s2"},
		},
		{
			name:      "maxTables 1 takes only the best table",
			tables:    []Table{tbl("a", "s1"), tbl("b", "s2", "s3")},
			maxTables: 1,
			chosen:    []string{"b"},
			universe:  []string{"s1", "s2", "s3"},
			uncovered: []string{"s1"},
		},
		{
			name:      "maxTables 0 chooses nothing and leaves everything uncovered",
			tables:    []Table{tbl("a", "s1")},
			maxTables: 0,
			chosen:    []string{},
			universe:  []string{"s1"},
			uncovered: []string{"s1"},
		},
		{
			name:      "empty cluster: nothing chosen, empty universe",
			tables:    nil,
			maxTables: 5,
			chosen:    []string{},
			universe:  []string{},
			uncovered: []string{},
		},
		{
			name:      "tables without servers are skipped and add nothing to the universe",
			tables:    []Table{{Name: "empty"}, tbl("a", "s1"), {Name: "nolegs", Servers: []string{"s7"}}},
			maxTables: 5,
			chosen:    []string{"a"},
			universe:  []string{"s1"},
			uncovered: []string{},
		},
		{
			name:      "a table whose routing has only empty legs is skipped",
			tables:    []Table{TableFromRouting("pending", Routing{"pending_OFFLINE": {}, "pending_REALTIME": {}}), tbl("a", "s1")},
			maxTables: 5,
			chosen:    []string{"a"},
			universe:  []string{"s1"},
			uncovered: []string{},
		},
		{
			name:      "only serverless tables: nothing chosen",
			tables:    []Table{{Name: "x"}, {Name: "y", Legs: []string{"y_OFFLINE"}}},
			maxTables: 5,
			chosen:    []string{},
			universe:  []string{},
			uncovered: []string{},
		},
		{
			name:      "a server listed twice in one table counts once",
			tables:    []Table{tbl("a", "s1", "s1", "s1"), tbl("b", "s2", "s3")},
			maxTables: 1,
			chosen:    []string{"b"},
			universe:  []string{"s1", "s2", "s3"},
			uncovered: []string{"s1"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Cover(tc.tables, tc.maxTables)
			if n := names(got.Chosen); !reflect.DeepEqual(n, tc.chosen) {
				t.Errorf("chosen = %q, want %q", n, tc.chosen)
			}
			if !reflect.DeepEqual(got.Universe, tc.universe) {
				t.Errorf("universe = %q, want %q", got.Universe, tc.universe)
			}
			if !reflect.DeepEqual(got.Uncovered, tc.uncovered) {
				t.Errorf("uncovered = %q, want %q", got.Uncovered, tc.uncovered)
			}
			if len(got.Chosen) > tc.maxTables {
				t.Errorf("chose %d tables, more than maxTables %d", len(got.Chosen), tc.maxTables)
			}
		})
	}
}

// Every server of the universe is reached by a chosen table when maxTables allows.
func TestCoverCoversEveryServer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var tables []Table
		for i := range 1 + rng.IntN(12) {
			var servers []string
			for s := range 10 {
				if rng.IntN(4) == 0 {
					servers = append(servers, "Server_"+string(rune('a'+s)))
				}
			}
			tables = append(tables, tbl("t"+string(rune('a'+i)), servers...))
		}
		got := Cover(tables, len(tables))
		if len(got.Uncovered) != 0 {
			t.Fatalf("trial %d: uncovered %q with maxTables = len(tables)", trial, got.Uncovered)
		}
		hit := map[string]bool{}
		for _, c := range got.Chosen {
			gain := 0
			for _, s := range c.Servers {
				if !hit[s] {
					hit[s] = true
					gain++
				}
			}
			if gain == 0 {
				t.Fatalf("trial %d: chose %q which adds no server", trial, c.Name)
			}
		}
		for _, s := range got.Universe {
			if !hit[s] {
				t.Fatalf("trial %d: server %s not covered", trial, s)
			}
		}
	}
}

func TestCoverIsDeterministicRegardlessOfInputOrder(t *testing.T) {
	tables := []Table{
		tbl("orders", "s1", "s2"), tbl("clicks", "s2", "s3"), tbl("events", "s3", "s4"),
		tbl("users", "s1", "s4"), tbl("audit", "s5"), tbl("misc", "s5", "s1"), {Name: "empty"},
		// Two entries with one name (a caller bug) must not make the result order-dependent.
		tbl("dup", "s6"), tbl("dup", "s7"),
	}
	for _, maxTables := range []int{1, 3, 10} {
		want := Cover(tables, maxTables)
		rng := rand.New(rand.NewPCG(7, uint64(maxTables)))
		for i := range 100 {
			shuffled := slices.Clone(tables)
			rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			if got := Cover(shuffled, maxTables); !reflect.DeepEqual(got, want) {
				t.Fatalf("maxTables %d, shuffle %d (%q): got %+v, want %+v", maxTables, i, names(shuffled), got, want)
			}
		}
	}
}

func TestCoverDoesNotModifyInput(t *testing.T) {
	tables := []Table{tbl("b", "s2"), tbl("a", "s1")}
	before := slices.Clone(tables)
	Cover(tables, 5)
	if !reflect.DeepEqual(tables, before) {
		t.Errorf("input reordered: %q, was %q", names(tables), names(before))
	}
}

// The universe is the servers of the tables THIS broker routes: a server that only
// another tenant's table lives on is not in it.
func TestCoverUniverseIsTenantScoped(t *testing.T) {
	routes := map[string]Table{
		"orders": TableFromRouting("orders", Routing{"orders_OFFLINE": {"Server_1": {"o0"}}}),
		"clicks": TableFromRouting("clicks", Routing{"clicks_REALTIME": {"Server_2": {"c0"}}}),
	}
	// "other" lives on Server_9 in another tenant: the broker answered 404, so it is
	// not in routes and its server must not count as uncovered.
	kept, dropped := Routable([]string{"orders", "other", "clicks"}, routes)
	got := Cover(kept, 1)
	if want := []string{"Server_1", "Server_2"}; !reflect.DeepEqual(got.Universe, want) {
		t.Errorf("universe = %q, want %q", got.Universe, want)
	}
	// Both tables add one server: "clicks" wins the tie by name, so only Server_1
	// (never "other"'s Server_9) is uncovered.
	if want := []string{"Server_1"}; !reflect.DeepEqual(got.Uncovered, want) {
		t.Errorf("uncovered = %q, want %q (only this broker's servers)", got.Uncovered, want)
	}
	if want := []string{"other"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped = %q, want %q", dropped, want)
	}
}

func TestUncovered(t *testing.T) {
	cases := []struct {
		name     string
		universe []string
		chosen   []Table
		want     []string
	}{
		{"nothing chosen", []string{"s1", "s2"}, nil, []string{"s1", "s2"}},
		{"all covered", []string{"s1", "s2"}, []Table{tbl("a", "s2", "s1")}, []string{}},
		{"some covered", []string{"s1", "s2", "s3"}, []Table{tbl("a", "s2")}, []string{"s1", "s3"}},
		{"chosen servers outside the universe are ignored", []string{"s1"}, []Table{tbl("a", "s9")}, []string{"s1"}},
		{"empty universe", nil, []Table{tbl("a", "s1")}, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Uncovered(tc.universe, tc.chosen)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Uncovered = %q, want %q", got, tc.want)
			}
			if len(got) != len(tc.want) {
				t.Errorf("uncovered count = %d, want %d", len(got), len(tc.want))
			}
		})
	}
}
