package sqltext

import (
	"reflect"
	"strings"
	"testing"
)

// splitCase is an input Split accepts and the queries it must give.
type splitCase struct {
	name string
	in   string
	want []string
}

func checkSplits(t *testing.T, cases []splitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	cases := []splitCase{
		{"empty", "", nil},
		{"blank", " \n\t", nil},
		{"one query", "SELECT 1", []string{"SELECT 1"}},
		{"trailing ';'", "SELECT 1;", []string{"SELECT 1"}},
		{"blanks between are dropped", ";SELECT 1; ;\n;SELECT 2;;", []string{"SELECT 1", "SELECT 2"}},
		{"';' in a string literal is kept", "SELECT * FROM t WHERE s = 'a;b'; SELECT 2", []string{"SELECT * FROM t WHERE s = 'a;b'", "SELECT 2"}},
		{"';' in a quoted identifier is kept", `SELECT "c;d" FROM "t;x";SELECT 3`, []string{`SELECT "c;d" FROM "t;x"`, "SELECT 3"}},
		{"';' in backquotes is kept", "SELECT `e;f` FROM t", []string{"SELECT `e;f` FROM t"}},
		{"doubled quote escapes", "SELECT 'it''s;fine'; SELECT 4", []string{"SELECT 'it''s;fine'", "SELECT 4"}},
		{"other quotes inside a literal do not open", `SELECT 'say "hi;"'; SELECT 5`, []string{`SELECT 'say "hi;"'`, "SELECT 5"}},
		{"multi-line query", "SELECT a\nFROM t\nLIMIT 1;\nSELECT 6\n", []string{"SELECT a\nFROM t\nLIMIT 1", "SELECT 6"}},
		{"non-UTF-8 bytes are kept as written", "SELECT '\xff\xfe'", []string{"SELECT '\xff\xfe'"}},

		{"';' in a line comment does not split", "SELECT 1 -- one; two\nFROM t; SELECT 2", []string{"SELECT 1 -- one; two\nFROM t", "SELECT 2"}},
		{"'//' is a line comment too", "SELECT 1 // a;b\n; SELECT 2", []string{"SELECT 1 // a;b", "SELECT 2"}},
		{"';' in a block comment does not split", "SELECT /* a; b */ 1; SELECT 2", []string{"SELECT /* a; b */ 1", "SELECT 2"}},
		{"a quote in a comment does not open", "-- don't\nSELECT 1; /* it's */ SELECT 2", []string{"-- don't\nSELECT 1", "/* it's */ SELECT 2"}},
		{"comment-only parts are dropped", "SELECT 1; -- the end\n; /* nothing */", []string{"SELECT 1"}},
		{"a comment ends a word", "SELECT a--b;\nSELECT 2", []string{"SELECT a--b;\nSELECT 2"}},
		{"a block comment closes at the first */", "SELECT 1 /* a /* b */; SELECT 2", []string{"SELECT 1 /* a /* b */", "SELECT 2"}},
		{"a lone '-' or '/' is not a comment", "SELECT 4-3/1; SELECT 2", []string{"SELECT 4-3/1", "SELECT 2"}},
	}
	checkSplits(t, cases)
}

// SET statements are the next query's options: Pinot parses them in the same
// request, so they are never split from it.
func TestSplitKeepsSETWithTheQueryAfterIt(t *testing.T) {
	cases := []splitCase{
		{"one SET", "SET useMultistageEngine=true; SELECT * FROM t", []string{"SET useMultistageEngine=true; SELECT * FROM t"}},
		{"any case", "set a = 1;Set b=2; SELECT 1", []string{"set a = 1;Set b=2; SELECT 1"}},
		{"several SETs, then more queries", "SET a = 1; SET b = 'x'; SELECT 1; SELECT 2; SET c = 3; SELECT 3",
			[]string{"SET a = 1; SET b = 'x'; SELECT 1", "SELECT 2", "SET c = 3; SELECT 3"}},
		{"a quoted ';' in a SET value", "SET a = 'x;y'; SELECT 1", []string{"SET a = 'x;y'; SELECT 1"}},
		{"a quoted ';' in a quoted SET key", `SET "a;b" = 1; SELECT 1`, []string{`SET "a;b" = 1; SELECT 1`}},
		{"blanks and comments between SET and query are kept as written", "SET a = 1 -- why; not\n; ;\n/* c */ SELECT 1",
			[]string{"SET a = 1 -- why; not\n; ;\n/* c */ SELECT 1"}},
		{"a comment before SET", "/* options */ SET a = 1; SELECT 1", []string{"/* options */ SET a = 1; SELECT 1"}},
		{"a SET applies to the next query only", "SELECT 0; SET a = 1; SELECT 1; SELECT 2",
			[]string{"SELECT 0", "SET a = 1; SELECT 1", "SELECT 2"}},
		{"SET as a name or inside a word is not a SET", `SELECT SET_X FROM t; SELECT "SET" FROM u; SETTINGS x`,
			[]string{"SELECT SET_X FROM t", `SELECT "SET" FROM u`, "SETTINGS x"}},
		{"a quoted SET is an identifier, not the keyword", `"SET"; SELECT 1`, []string{`"SET"`, "SELECT 1"}},
	}
	checkSplits(t, cases)
}

func TestSplitErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		err  string
	}{
		{"unterminated single quote", "SELECT 'abc; SELECT 2", "unterminated quote: expected every ' to be closed"},
		{"unterminated double quote", `SELECT "abc`, `unterminated quote: expected every " to be closed`},
		{"unterminated backquote", "SELECT `abc", "unterminated quote: expected every ` to be closed"},
		{"a doubled quote at the end does not close", "SELECT 'abc''", "unterminated quote: expected every ' to be closed"},
		{"unterminated block comment", "SELECT 1 /* a; SELECT 2", "unterminated comment: expected every /* to be closed by */"},
		{"'/*/' does not close", "SELECT 1 /*/", "unterminated comment: expected every /* to be closed by */"},
		{"SET alone", "SET useMultistageEngine=true",
			`"SET useMultistageEngine=true" has no query after it: expected each SET statement to come before the query it applies to`},
		{"trailing SET after a query", "SELECT 1; SET a = 'x;y';",
			`"SET a = 'x;y';" has no query after it: expected each SET statement to come before the query it applies to`},
		{"several trailing SETs, only comments after", "SELECT 1; SET a = 1; SET b = 2; -- done",
			`"SET a = 1; SET b = 2; -- done" has no query after it: expected each SET statement to come before the query it applies to`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.in)
			if err == nil || err.Error() != tc.err {
				t.Fatalf("Split(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	for _, seed := range []string{
		"SELECT 1",
		"SELECT * FROM \"airlines_OFFLINE\" LIMIT 1; SELECT count(*) FROM airlines_REALTIME",
		"SELECT * FROM t WHERE s = 'a;b'; SELECT 'it''s'",
		"SELECT `x;y` FROM t;;  ;",
		"SET useMultistageEngine=true; SET a = 'x;y'; SELECT 1; SELECT 2",
		"SELECT 1 -- c;\n; /* d; */ SELECT 2 // e",
		"SELECT 'unterminated",
		"SET a = 1;",
		"\xff;\xfe'",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := Split(s)
		if err != nil {
			return // each error text is pinned by TestSplitErrors
		}
		for _, p := range parts {
			if strings.TrimSpace(p) == "" || p != strings.TrimSpace(p) {
				t.Fatalf("part %q is blank or untrimmed", p)
			}
			if !strings.Contains(s, p) {
				t.Fatalf("part %q is not a piece of the input %q", p, s)
			}
			// A part is one query (with its SETs): it never splits further.
			if again, err := Split(p); err != nil || len(again) != 1 || again[0] != p {
				t.Fatalf("re-splitting part %q = %q, %v", p, again, err)
			}
		}
		// A newline before each ';' ends any line comment a part closes with.
		again, err := Split(strings.Join(parts, "\n;"))
		if err != nil {
			t.Fatalf("re-splitting %q: %v", parts, err)
		}
		if !reflect.DeepEqual(again, parts) {
			t.Fatalf("re-split of %q = %q", parts, again)
		}
	})
}
