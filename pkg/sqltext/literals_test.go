package sqltext

import (
	"slices"
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT "city", COUNT(*) FROM "t" WHERE "city" = 'Zanzibar' AND "ts" BETWEEN 1796119200000 AND 1796119740000 LIMIT 10`: `SELECT "city", COUNT(*) FROM "t" WHERE "city" = ? AND "ts" BETWEEN ? AND ? LIMIT 10`,
		`SELECT * FROM t WHERE s IN ('a', 'it''s', 'c') LIMIT 5, 20`:                                                           `SELECT * FROM t WHERE s IN (?, ?, ?) LIMIT 5, 20`,
		`SELECT col1, v2_x FROM t2 WHERE x>=5 AND y=-1.5e3 AND z<.25 OFFSET 3`:                                                 `SELECT col1, v2_x FROM t2 WHERE x>=? AND y=-? AND z<? OFFSET 3`,
		`SET useMultistageEngine=true; SET timeoutMs=5000; SELECT PERCENTILE("a", 95) FROM "t"`:                                `SET useMultistageEngine=true; SET timeoutMs=5000; SELECT PERCENTILE("a", ?) FROM "t"`,
		`SELECT REGEXP_LIKE("c", '^Quokka') FROM "it's" -- a 'comment' 42`:                                                     `SELECT REGEXP_LIKE("c", ?) FROM "it's" -- a 'comment' 42`,
		`SELECT 1abc, "x1" FROM t WHERE a = 'unclosed`:                                                                         `SELECT 1abc, "x1" FROM t WHERE a = ?`,
		`SELECT 1`: `SELECT ?`,
		``:         ``,
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestLiterals(t *testing.T) {
	got := Literals(`SELECT a FROM t WHERE s = 'it''s' AND n > 42 LIMIT 10`)
	if want := []string{`'it''s'`, "42"}; !slices.Equal(got, want) {
		t.Errorf("Literals = %q, want %q", got, want)
	}
}

// FuzzMask: masking never panics, is stable (a masked query masks to itself),
// leaves no literal behind, and keeps the names: the query's tables stay the
// same (those without a digit: a word such as 0 or db.5, masked, is no name).
func FuzzMask(f *testing.F) {
	for _, seed := range []string{
		`SELECT "c" FROM "t" WHERE "c" = 'v' AND n BETWEEN 1 AND 2.5e3 LIMIT 10`,
		"SET a = 5; SELECT 'it''s', x>=-3 FROM t OFFSET 2",
		"SELECT 'unterminated",
		"SELECT 1abc, .5, 1.2.3 FROM t9 -- 4",
		"\xff'\xfe",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := Mask(s)
		if again := Mask(m); again != m {
			t.Fatalf("Mask(%q) = %q, masked again %q", s, m, again)
		}
		if l := Literals(m); len(l) != 0 {
			t.Fatalf("Mask(%q) = %q keeps literals %q", s, m, l)
		}
		noDigit := func(ts []string) []string {
			return slices.DeleteFunc(ts, func(t string) bool { return strings.ContainsAny(t, "0123456789"+MaskMark) })
		}
		if a, b := noDigit(Tables(s)), noDigit(Tables(m)); !slices.Equal(a, b) {
			t.Fatalf("Mask(%q) = %q: tables %q became %q", s, m, a, b)
		}
	})
}
