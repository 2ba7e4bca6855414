package sqltext

import (
	"slices"
	"testing"
)

func TestTables(t *testing.T) {
	cases := []struct {
		sql  string
		want []string
	}{
		{`SELECT * FROM "events_OFFLINE" LIMIT 1`, []string{"events_OFFLINE"}},
		{`select count(*) from orders where x = 'FROM fake'`, []string{"orders"}},
		{"SELECT a FROM `my table` JOIN b ON 1=1 JOIN \"c\"\"d\" ON 1=1", []string{"my table", "b", `c"d`}},
		{`SELECT * FROM (SELECT * FROM inner_t) x`, []string{"inner_t"}},
		{`SELECT 1`, nil},
		{`SELECT * FROM`, nil},
		{`SELECT * FROM "unterminated`, nil},
		{`SELECT * FROM "a" JOIN "b`, []string{"a"}},
		{`SELECT * FROM ""`, nil},
		{`SELECT * FROM t,u;`, []string{"t"}},
		{`SELECT * FROM orders JOIN orders ON 1=1`, []string{"orders"}},
		{`SELECT * FROM db.orders`, []string{"db.orders"}},
		{"SET useMultistageEngine=true; SELECT * FROM a JOIN b ON a.x = b.x", []string{"a", "b"}},
		{"SELECT * FROM /* the big one */ big -- FROM small\nJOIN other ON 1=1", []string{"big", "other"}},
		{"SELECT * FROM t--comment", []string{"t"}},
	}
	for _, c := range cases {
		if got := Tables(c.sql); !slices.Equal(got, c.want) {
			t.Errorf("Tables(%q) = %q, want %q", c.sql, got, c.want)
		}
	}
}

func FuzzTables(f *testing.F) {
	for _, s := range []string{`SELECT * FROM "t_OFFLINE" LIMIT 1`, "SELECT a FROM `x` JOIN \"y\"\"z\" ON 1", `FROM 'x`, `FROM "`, `FROM (`, "FROM /* x", "FROM -- x\nt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, tb := range Tables(sql) {
			if tb == "" {
				t.Fatalf("Tables(%q) returned an empty name", sql)
			}
		}
	})
}
