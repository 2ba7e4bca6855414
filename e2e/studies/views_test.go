package studies

import (
	"strings"
	"testing"
)

// A block the tool cannot render fails at its page and line, saying what was expected; every
// bad block of a page is named, not only the first.
func TestBadBlocksSayWhatWasExpected(t *testing.T) {
	r := NewRepo(root)
	const page = "docs/page.md"
	for _, tc := range []struct{ block, want string }{
		{"<!-- generated: rollout-tables results/rollout/latest.json -->", `docs/page.md:3: rollout-tables: unknown view "rollout-tables" (the views: coldstart-jvm,`},
		{"<!-- generated: rollout-table -->", "docs/page.md:3: rollout-table: no FILE: want rollout-table FILE [arms=a,b]"},
		{"<!-- generated: rollout-table arms=off -->", "no FILE: want rollout-table FILE [arms=a,b]"},
		{"<!-- generated: rollout-table results/rollout/none.json -->", "results/rollout/none.json: no such file (paths are from the repository's root)"},
		{"<!-- generated: rollout-table ../results/rollout/latest.json -->", "../results/rollout/latest.json: not a path inside the repository"},
		{"<!-- generated: rollout-method results/rollout/latest.json arms=off -->", `argument "arms=off": want rollout-method FILE`},
		{"<!-- generated: rollout-table results/rollout/latest.json arms=off,on_nothing -->", `arms=off,on_nothing: no arm "on_nothing" in results/rollout/latest.json (its arms: off,off_fast,lb_slowstart,on_default,on_fast)`},
		{"<!-- generated: rollout-table results/rollout/latest.json arms -->", `argument "arms": want rollout-table FILE [arms=a,b]`},
		{"<!-- generated: coldstart-table results/rollout/latest.json -->", "results/rollout/latest.json: another kind of study than this view reads"},
		{"<!-- generated: rollout-method results/coldstart/api.json -->", "results/coldstart/api.json: another kind of study than this view reads"},
		{"<!-- generated: rollout-method results/rollout/latest.json\nspec\n-->", `spec lines given ("spec"): want rollout-method FILE`},
		{"<!-- generated: rollout-rows pages=e2e/studies/testdata/pages -->", "no spec line: want rollout-rows"},
		{"<!-- generated: rollout-rows pages=e2e/studies/testdata/pages\nbroker | 300m\n-->", "want `label | values | FILE ARM`"},
		{"<!-- generated: rollout-rows pages=e2e/studies/testdata/pages\nbroker | 300m | results/rollout/latest.json\n-->", "want `FILE ARM` after the second |"},
		{"<!-- generated: rollout-rows pages=e2e/studies/testdata/pages\nbroker | 300m | results/rollout/latest.json on_nothing\n-->", `no arm "on_nothing" in the study`},
		{"<!-- generated: index pages=docs/nowhere -->", "pages=docs/nowhere:"},
	} {
		doc := "# Page\n\n" + tc.block + "\n<!-- /generated -->\n"
		_, _, err := r.CheckText(page, doc)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.block, err, tc.want)
		}
	}
	doc := "# Page\n\n<!-- generated: nope -->\n<!-- /generated -->\n\n<!-- generated: rollout-table -->\n<!-- /generated -->\n"
	_, _, err := r.CheckText(page, doc)
	if err == nil || !strings.Contains(err.Error(), "docs/page.md:3: nope:") || !strings.Contains(err.Error(), "docs/page.md:6: rollout-table:") {
		t.Errorf("error %v, want both bad blocks named", err)
	}
}

// A malformed block fails at the page's line.
func TestMalformedBlockFailsAtItsLine(t *testing.T) {
	_, _, err := NewRepo(root).CheckText("docs/page.md", "# Page\n\n<!-- generated: index -->\n")
	if err == nil || err.Error() != "docs/page.md:3: block never closed by <!-- /generated -->" {
		t.Fatalf("error %v", err)
	}
}
