package sqltext

import "testing"

func TestMultiStage(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{`SELECT 1`, false},
		{`SET useMultistageEngine=true; SELECT 1`, true},
		{`set USEMULTISTAGEENGINE = TRUE ; SELECT a FROM t`, true},
		{`SET "useMultistageEngine" = 'true'; SELECT 1`, true},
		{`SET useMultistageEngine=false; SELECT 1`, false},
		{`SET useMultistageEngine=true; SET useMultistageEngine=false; SELECT 1`, false},
		{`SET timeoutMs=100; SET useMultistageEngine=true; SELECT 1`, true},
		{`/* c */ SET useMultistageEngine=true; -- x` + "\n" + `SELECT 1`, true},
		{`SELECT 'SET useMultistageEngine=true;' FROM t`, false},
		{`SELECT 1; SET useMultistageEngine=true`, false},
		{`SET useMultistageEngineX=true; SELECT 1`, false},
		{WithMultiStage(`SELECT * FROM "t" LIMIT 1`), true},
	} {
		if got := MultiStage(c.sql); got != c.want {
			t.Errorf("MultiStage(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

func TestWithMultiStageSplitsAsOneQuery(t *testing.T) {
	q := WithMultiStage(`SELECT a FROM "t" WHERE b = 'x;y' LIMIT 5`)
	parts, err := Split(q)
	if err != nil || len(parts) != 1 || parts[0] != q {
		t.Fatalf("Split(%q) = %q, %v; want the query whole", q, parts, err)
	}
	if got := Tables(q); len(got) != 1 || got[0] != "t" {
		t.Errorf("Tables(%q) = %q, want [t]", q, got)
	}
}
