package studies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The index lists every study page newest first (by its JSONs' last start, or its **When:** line),
// each by its title, with where, the mix and load and the arms from its JSON and its result.
func TestIndexListsThePagesNewestFirst(t *testing.T) {
	r := NewRepo(root)
	out, _, err := r.CheckText("e2e/studies/testdata/pages/README.md", "# P\n\n<!-- generated: index pages=e2e/studies/testdata/pages -->\n<!-- /generated -->\n")
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"(rollout.md)", "(jdk25.md)", "(coldstart.md)", "(prose.md)"}
	last := -1
	for _, link := range order {
		i := strings.Index(out, link)
		if i < last {
			t.Errorf("%s out of order (want %q):\n%s", link, order, out)
		}
		last = i
	}
	containsAll(t, "the index", out,
		"| when | study | where | mix and load | arms | result |\n",
		"| 2026-12-06 20:26 – 2026-12-07 01:00 UTC | [Rolling restarts of brokers without a CPU limit (a test page)](rollout.md) | Kubernetes test bed: 3 brokers, no CPU limit | builtin, 40 QPS (25 % of capacity); builtin, 60 QPS",
		"| `off`, `off_fast`, `on_chart`, `on_default`, `on_fast_paced`, `on_fast`, `on_boost_300m` | a page of the studies package's tests, its blocks rendered from committed studies. |\n",
		"| 2026-12-03 14:15 – 18:16 UTC | [The broker's JDK and C1 on the dashboard and reduce mixes (a test page)](jdk25.md) | local cluster: 1 broker, 2 CPUs | dashboard, 110 QPS; reduce, 30 QPS |",
		"| 2026-11-30, on the development machine. | [The sidecar's own cost (a test page)](prose.md) | – | – | – | a page with no study JSON",
	)
	if strings.Contains(out, "(README.md)") {
		t.Errorf("the index lists itself:\n%s", out)
	}
}

// A study page the index cannot read fails, saying what it wants.
func TestIndexRefusesAPageItCannotList(t *testing.T) {
	for _, tc := range []struct{ page, want string }{
		{"# A study\n\nProse, no result.\n\n**When:** 2026-12-01\n", "docs/studies/a.md: no `**Result:** <the result in a phrase>.` line"},
		{"# A study\n\n**Result:**\n", "docs/studies/a.md:3: an empty **Result:** line"},
		{"A study\n\n**Result:** it did.\n", "docs/studies/a.md:1: a study page begins with its title"},
		{"# A study\n\n**Result:** it did.\n", "docs/studies/a.md: no study JSON in a block and no `**When:** YYYY-MM-DD` line"},
		{"# A study\n\n**Result:** it did.\n\n**When:** early December\n", `docs/studies/a.md: its **When:** line "early December" has no date`},
		{"# A study\n\n<!-- generated: index -->\n**Result:** inside a block, the tool's: not the page's.\n<!-- /generated -->\n\n**When:** 2026-12-01\n", "docs/studies/a.md: no `**Result:**"},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "docs", "studies"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "docs", "studies", "a.md"), []byte(tc.page), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := NewRepo(dir).CheckText("docs/studies/README.md", "# Studies\n\n<!-- generated: index -->\n<!-- /generated -->\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one with %q", tc.page, err, tc.want)
		}
	}
}

// Rendering a page twice gives the page once rendered: -update is idempotent, and a page
// rendered is current.
func TestRenderingIsIdempotent(t *testing.T) {
	r := NewRepo(root)
	for _, p := range []string{"README.md", "rollout.md", "coldstart.md", "jdk25.md"} {
		page := "e2e/studies/testdata/pages/" + p
		b, err := os.ReadFile(filepath.Join("testdata", "pages", p))
		if err != nil {
			t.Fatal(err)
		}
		blank, err := Rewrite(string(b), func(Block) (string, error) { return "", nil })
		if err != nil {
			t.Fatal(err)
		}
		once, mismatches, err := r.CheckText(page, blank)
		if err != nil {
			t.Fatal(err)
		}
		if len(mismatches) == 0 {
			t.Errorf("%s: blank blocks passed as current", p)
		}
		twice, mismatches, err := r.CheckText(page, once)
		if err != nil {
			t.Fatal(err)
		}
		if twice != once || len(mismatches) > 0 {
			t.Errorf("%s: a second rendering changed the page (%d blocks)", p, len(mismatches))
		}
	}
}
