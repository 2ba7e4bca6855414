package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitQueries(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
		err  string
	}{
		{name: "empty", in: "", want: nil},
		{name: "blank", in: " \n\t", want: nil},
		{name: "one query", in: "SELECT 1", want: []string{"SELECT 1"}},
		{name: "trailing ';'", in: "SELECT 1;", want: []string{"SELECT 1"}},
		{name: "blanks between are dropped", in: ";SELECT 1; ;\n;SELECT 2;;", want: []string{"SELECT 1", "SELECT 2"}},
		{name: "';' in a string literal is kept", in: "SELECT * FROM t WHERE s = 'a;b'; SELECT 2", want: []string{"SELECT * FROM t WHERE s = 'a;b'", "SELECT 2"}},
		{name: "';' in a quoted identifier is kept", in: `SELECT "c;d" FROM "t;x";SELECT 3`, want: []string{`SELECT "c;d" FROM "t;x"`, "SELECT 3"}},
		{name: "';' in backquotes is kept", in: "SELECT `e;f` FROM t", want: []string{"SELECT `e;f` FROM t"}},
		{name: "doubled quote escapes", in: "SELECT 'it''s;fine'; SELECT 4", want: []string{"SELECT 'it''s;fine'", "SELECT 4"}},
		{name: "other quotes inside a literal do not open", in: `SELECT 'say "hi;"'; SELECT 5`, want: []string{`SELECT 'say "hi;"'`, "SELECT 5"}},
		{name: "multi-line query", in: "SELECT a\nFROM t\nLIMIT 1;\nSELECT 6\n", want: []string{"SELECT a\nFROM t\nLIMIT 1", "SELECT 6"}},
		{name: "non-UTF-8 bytes are kept as written", in: "SELECT '\xff\xfe'", want: []string{"SELECT '\xff\xfe'"}},
		{name: "unterminated single quote", in: "SELECT 'abc; SELECT 2", err: "unterminated quote: expected every ' to be closed"},
		{name: "unterminated double quote", in: `SELECT "abc`, err: `unterminated quote: expected every " to be closed`},
		{name: "unterminated backquote", in: "SELECT `abc", err: "unterminated quote: expected every ` to be closed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SplitQueries(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SplitQueries(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplitTables(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"orders", []string{"orders"}},
		{" orders , clicks ", []string{"orders", "clicks"}},
		{"b,a,b,a", []string{"b", "a"}},
		{"orders,,clicks,\n", []string{"orders", "clicks"}},
		{"Orders,orders", []string{"Orders", "orders"}},
	}
	for _, tc := range cases {
		if got := SplitTables(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitTables(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// unquotedSemicolon reports whether s has a ';' outside quotes.
func unquotedSemicolon(s string) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == ';':
			return true
		}
	}
	return false
}

func FuzzSplitQueries(f *testing.F) {
	for _, seed := range []string{
		"SELECT 1",
		"SELECT * FROM \"airlines_OFFLINE\" LIMIT 1; SELECT count(*) FROM airlines_REALTIME",
		"SELECT * FROM t WHERE s = 'a;b'; SELECT 'it''s'",
		"SELECT `x;y` FROM t;;  ;",
		"SELECT 'unterminated",
		"SELECT \"a\" ; \n",
		"\xff;\xfe'",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := SplitQueries(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "unterminated quote") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for _, p := range parts {
			if strings.TrimSpace(p) == "" || p != strings.TrimSpace(p) {
				t.Fatalf("part %q is blank or untrimmed", p)
			}
			if unquotedSemicolon(p) {
				t.Fatalf("part %q holds an unquoted ';'", p)
			}
			if !strings.Contains(s, p) {
				t.Fatalf("part %q is not a piece of the input %q", p, s)
			}
		}
		again, err := SplitQueries(strings.Join(parts, ";"))
		if err != nil {
			t.Fatalf("re-splitting %q: %v", parts, err)
		}
		if !reflect.DeepEqual(again, parts) {
			t.Fatalf("re-split of %q = %q", parts, again)
		}
	})
}
