package shapes

import (
	"reflect"
	"strings"
	"testing"
)

func joinInput(t *testing.T, table, dims, rows string, cols ...string) TableSchema {
	t.Helper()
	ts := TableSchema{Table: table, Schema: schemaOf(t, `{"dimensionFieldSpecs":[`+dims+`]}`)}
	if rows != "" {
		ts.Sample = rowsOf(t, cols, rows)
	}
	return ts
}

func TestJoinShapes(t *testing.T) {
	orders := joinInput(t, "orders_OFFLINE", `{"name":"order_id","dataType":"LONG"},{"name":"country","dataType":"STRING"}`,
		`[[1,"US"],[2,"FR"]]`, "order_id", "country")
	users := joinInput(t, "users_OFFLINE", `{"name":"country","dataType":"STRING"},{"name":"age","dataType":"INT"}`,
		`[["DE",30],["FR",40]]`, "country", "age")
	usersInt := joinInput(t, "users_OFFLINE", `{"name":"country","dataType":"INT"}`, "")
	usersRT := joinInput(t, "orders_REALTIME", `{"name":"order_id","dataType":"LONG"},{"name":"country","dataType":"STRING"}`, "")
	noKeys := joinInput(t, "blobs_OFFLINE", `{"name":"j","dataType":"JSON"},{"name":"d","dataType":"DOUBLE"}`, "")
	mvKey := joinInput(t, "tags_OFFLINE", `{"name":"country","dataType":"STRING","singleValueField":false}`, "")

	sub := func(table, filter string) string {
		return `(SELECT "country" FROM "` + table + `" ` + filter + `LIMIT 100)`
	}
	cases := []struct {
		name   string
		in     []TableSchema
		want   []string // shape names
		tables [][]string
		sql    string // of the first shape, when set
	}{
		{"shared name and type: join on a value both samples hold", []TableSchema{orders, users},
			[]string{"mse_join"}, [][]string{{"orders_OFFLINE", "users_OFFLINE"}},
			`SELECT "l"."country", COUNT(*) FROM ` + sub("orders_OFFLINE", `WHERE "country" = 'FR' `) + ` AS "l" JOIN ` +
				sub("users_OFFLINE", `WHERE "country" = 'FR' `) + ` AS "r" ON "l"."country" = "r"."country" GROUP BY "l"."country" ORDER BY COUNT(*) DESC LIMIT 10`},
		{"shared name, other type: self-join", []TableSchema{orders, usersInt},
			[]string{"mse_self_join"}, [][]string{{"orders_OFFLINE"}},
			`SELECT "l"."country", COUNT(*) FROM ` + sub("orders_OFFLINE", `WHERE "country" = 'US' `) + ` AS "l" JOIN ` +
				sub("orders_OFFLINE", `WHERE "country" = 'US' `) + ` AS "r" ON "l"."country" = "r"."country" GROUP BY "l"."country" ORDER BY COUNT(*) DESC LIMIT 10`},
		{"two legs of one hybrid table are no join pair", []TableSchema{orders, usersRT},
			[]string{"mse_self_join"}, [][]string{{"orders_OFFLINE"}}, ""},
		{"multi-value column is no key", []TableSchema{mvKey, users},
			[]string{"mse_self_join"}, [][]string{{"users_OFFLINE"}}, ""},
		{"no sample: unfiltered", []TableSchema{usersInt},
			[]string{"mse_self_join"}, [][]string{{"users_OFFLINE"}},
			`SELECT "l"."country", COUNT(*) FROM (SELECT "country" FROM "users_OFFLINE" LIMIT 100) AS "l" JOIN (SELECT "country" FROM "users_OFFLINE" LIMIT 100) AS "r" ON "l"."country" = "r"."country" GROUP BY "l"."country" ORDER BY COUNT(*) DESC LIMIT 10`},
		{"no key anywhere", []TableSchema{noKeys}, nil, nil, ""},
		{"no tables", nil, nil, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := JoinShapes(c.in)
			checkShapes(t, got, c.in...)
			if !reflect.DeepEqual(names(got), c.want) {
				t.Fatalf("names %v, want %v", names(got), c.want)
			}
			for i, sh := range got {
				if !reflect.DeepEqual(sh.Tables, c.tables[i]) || sh.Engine != MultiStage {
					t.Errorf("%s: tables %v engine %s, want %v multi-stage", sh.Name, sh.Tables, sh.Engine, c.tables[i])
				}
			}
			if c.sql != "" && got[0].SQL != c.sql {
				t.Errorf("SQL\n%s\nwant\n%s", got[0].SQL, c.sql)
			}
		})
	}
}

// Many tables sharing a key give at most MaxJoins joins, the earliest pairs first.
func TestJoinShapesBounded(t *testing.T) {
	var in []TableSchema
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		in = append(in, joinInput(t, n+"_OFFLINE", `{"name":"k","dataType":"INT"}`, ""))
	}
	got := JoinShapes(in)
	checkShapes(t, got, in...)
	want := [][]string{{"a_OFFLINE", "b_OFFLINE"}, {"a_OFFLINE", "c_OFFLINE"}}
	if len(got) != MaxJoins || !reflect.DeepEqual([][]string{got[0].Tables, got[1].Tables}, want) {
		t.Errorf("got %s", dump(got))
	}
	for _, sh := range got {
		if strings.Count(sh.SQL, "LIMIT 100") != 2 {
			t.Errorf("each join side must be LIMITed: %s", sh.SQL)
		}
	}
}
