package selector

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func TestTableFromRouting(t *testing.T) {
	cases := []struct {
		name    string
		table   string
		routing Routing
		legs    []string
		servers []string
	}{
		{
			name:    "OFFLINE only",
			table:   "orders",
			routing: Routing{"orders_OFFLINE": {"Server_2": {"o1"}, "Server_1": {"o0"}}},
			legs:    []string{"orders_OFFLINE"},
			servers: []string{"Server_1", "Server_2"},
		},
		{
			name:    "REALTIME only",
			table:   "clicks",
			routing: Routing{"clicks_REALTIME": {"Server_2": {"clicks__0__0"}}},
			legs:    []string{"clicks_REALTIME"},
			servers: []string{"Server_2"},
		},
		{
			name:  "hybrid: both legs, servers unioned and de-duplicated",
			table: "events",
			routing: Routing{
				"events_REALTIME": {"Server_2": {"e__0__0"}, "Server_3": {"e__1__0"}},
				"events_OFFLINE":  {"Server_3": {"e0"}},
			},
			legs:    []string{"events_OFFLINE", "events_REALTIME"},
			servers: []string{"Server_2", "Server_3"},
		},
		{
			name:  "hybrid with a leg that has no servers: the leg is dropped",
			table: "events",
			routing: Routing{
				"events_OFFLINE":  {},
				"events_REALTIME": {"Server_2": {"e__0__0"}},
			},
			legs:    []string{"events_REALTIME"},
			servers: []string{"Server_2"},
		},
		{
			name:    "routing with no segments at all: no legs, no servers",
			table:   "empty",
			routing: Routing{"empty_OFFLINE": {}},
			legs:    nil,
			servers: nil,
		},
		{
			name:    "nil routing",
			table:   "nothing",
			routing: nil,
			legs:    nil,
			servers: nil,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := TableFromRouting(tc.table, tc.routing)
			if got.Name != tc.table {
				t.Errorf("Name = %q, want %q", got.Name, tc.table)
			}
			if !reflect.DeepEqual(got.Legs, tc.legs) {
				t.Errorf("Legs = %q, want %q", got.Legs, tc.legs)
			}
			if !reflect.DeepEqual(got.Servers, tc.servers) {
				t.Errorf("Servers = %q, want %q", got.Servers, tc.servers)
			}
		})
	}
}

// The broker's JSON decodes straight into Routing.
func TestTableFromRoutingDecodesBrokerJSON(t *testing.T) {
	body := `{"airlines_OFFLINE":{"Server_10.0.0.1_8098":["airlines_0","airlines_1"]},` +
		`"airlines_REALTIME":{"Server_10.0.0.2_8098":["airlines__0__0__20240101T0000Z"],"Server_10.0.0.1_8098":["airlines__1__0"]}}`
	var rt Routing
	if err := json.Unmarshal([]byte(body), &rt); err != nil {
		t.Fatal(err)
	}
	got := TableFromRouting("airlines", rt)
	want := Table{
		Name:    "airlines",
		Legs:    []string{"airlines_OFFLINE", "airlines_REALTIME"},
		Servers: []string{"Server_10.0.0.1_8098", "Server_10.0.0.2_8098"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestRoutable(t *testing.T) {
	routes := map[string]Table{
		"orders": tbl("orders", "s1"),
		"clicks": tbl("clicks", "s2"),
		"events": tbl("events", "s2", "s3"),
		"empty":  TableFromRouting("empty", Routing{"empty_OFFLINE": {}}),
	}
	cases := []struct {
		name      string
		requested []string
		kept      []string
		dropped   []string
	}{
		{"keeps request order, not name order", []string{"events", "orders", "clicks"}, []string{"events", "orders", "clicks"}, nil},
		{"drops tables this broker does not route", []string{"orders", "other", "clicks"}, []string{"orders", "clicks"}, []string{"other"}},
		{"drops routable tables without servers", []string{"empty", "orders"}, []string{"orders"}, []string{"empty"}},
		{"nothing routable", []string{"other", "empty"}, nil, []string{"other", "empty"}},
		{"nothing requested", nil, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept, dropped := Routable(tc.requested, routes)
			var keptNames []string
			for _, k := range kept {
				keptNames = append(keptNames, k.Name)
				if !reflect.DeepEqual(k, routes[k.Name]) {
					t.Errorf("kept %q = %+v, want the routed table %+v", k.Name, k, routes[k.Name])
				}
			}
			if !reflect.DeepEqual(keptNames, tc.kept) {
				t.Errorf("kept = %q, want %q", keptNames, tc.kept)
			}
			if !reflect.DeepEqual(dropped, tc.dropped) {
				t.Errorf("dropped = %q, want %q", dropped, tc.dropped)
			}
		})
	}
}

func TestLegs(t *testing.T) {
	cases := []struct {
		name   string
		tables []Table
		want   []string
	}{
		{"none", nil, nil},
		{"single legs in table order", []Table{tbl("b", "s1"), tbl("a", "s2")}, []string{"b_OFFLINE", "a_OFFLINE"}},
		{
			"a hybrid table contributes both legs in place",
			[]Table{
				tbl("a", "s1"),
				{Name: "h", Legs: []string{"h_OFFLINE", "h_REALTIME"}, Servers: []string{"s2"}},
				{Name: "r", Legs: []string{"r_REALTIME"}, Servers: []string{"s3"}},
			},
			[]string{"a_OFFLINE", "h_OFFLINE", "h_REALTIME", "r_REALTIME"},
		},
		{"a table without legs contributes nothing", []Table{{Name: "x"}, tbl("a", "s1")}, []string{"a_OFFLINE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Legs(tc.tables); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Legs = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzRoutingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"orders_OFFLINE":{"Server_10.0.0.1_8098":["orders_0"]}}`,
		`{"events_OFFLINE":{"Server_10.0.0.3_8098":["events_0"]},"events_REALTIME":{"Server_10.0.0.2_8098":["events__0__0"],"Server_10.0.0.3_8098":["events__1__0"]}}`,
		`{"empty_OFFLINE":{}}`,
		`{"t_OFFLINE":{"s":[]}}`,
		`{"t_OFFLINE":null}`,
		`{}`,
		`null`,
		`{"code":404,"error":"Cannot find routing for table: x"}`,
		``,
		`{"a":{"":[""]},"b":{"":null}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rt Routing
		if err := json.Unmarshal(data, &rt); err != nil {
			return
		}
		got := TableFromRouting("t", rt)
		checkSortedUnique(t, "legs", got.Legs)
		checkSortedUnique(t, "servers", got.Servers)
		if (len(got.Legs) == 0) != (len(got.Servers) == 0) {
			t.Fatalf("legs %q and servers %q: one empty, the other not", got.Legs, got.Servers)
		}
		for _, leg := range got.Legs {
			if len(rt[leg]) == 0 {
				t.Fatalf("leg %q has no servers but was kept", leg)
			}
		}
		for leg, servers := range rt {
			if len(servers) > 0 && !slices.Contains(got.Legs, leg) {
				t.Fatalf("leg %q with servers was dropped", leg)
			}
			for s := range servers {
				if !slices.Contains(got.Servers, s) {
					t.Fatalf("server %q of leg %q missing", s, leg)
				}
			}
		}
	})
}

func checkSortedUnique(t *testing.T, what string, s []string) {
	t.Helper()
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			t.Fatalf("%s not sorted and unique: %q", what, s)
		}
	}
}
