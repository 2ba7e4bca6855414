package studies

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/rollout"
	"github.com/warmup-sidecar/warmup-sidecar/internal/markdown"
)

// An arm's README row says what the study's report says of it: each figure is the per-arm
// table's cell (the duration against off's, the targets'), so the README cannot disagree with
// its study; and a changed JSON changes the row.
func TestRowIsWhatTheReportsTableSays(t *testing.T) {
	s, err := rollout.ReadStudy(filepath.Join(root, "results", "rollout", "nolimit-builtin-quarter.json"))
	if err != nil {
		t.Fatal(err)
	}
	before := rowAgreesWithTable(t, s, "on_default")
	a := s.Arms["on_default"]
	a.Rollouts[0].Entries[0].Ratio = 9.75
	a.Rollouts[1].Cancelled += 7
	a.ScaleOuts[0].Failed = 3
	after := rowAgreesWithTable(t, s, "on_default")
	containsAll(t, "the row after the JSON changed", after, "lost 0, 7, 0 per rollout, 3 in the scale-out", "(max 9.8)")
	if after == before {
		t.Errorf("a changed JSON left the row as it was: %s", after)
	}
}

// rowAgreesWithTable checks arm's row against its row of the report's per-arm table, and
// returns it.
func rowAgreesWithTable(t *testing.T, s *rollout.Study, arm string) string {
	t.Helper()
	row, err := rollout.ArmRow(s, arm)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := markdown.Table("## t\n\n"+rollout.Table(s), "## t")
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, r := range rows {
		if r[0] == arm {
			cells = r
		}
	}
	if cells == nil {
		t.Fatalf("no %s row in the report's table", arm)
	}
	// The table's columns: arm, rollouts, failed, cancelled, …, first 10 s (8), neighbours (9),
	// by phase: starting / warmed / out (10), duration (11), start → Ready (12).
	failed, cancelled := strings.Split(cells[2], ", "), strings.Split(cells[3], ", ")
	var lost []string
	for i := range failed {
		f, _ := strconv.Atoi(failed[i])
		c, _ := strconv.Atoi(cancelled[i])
		lost = append(lost, fmt.Sprint(f+c))
	}
	scaleOut := s.Arms[arm].ScaleOuts[0]
	wants := []string{
		fmt.Sprintf("lost %s per rollout, %d in the scale-out", strings.Join(lost, ", "), scaleOut.Failed+scaleOut.Cancelled),
		"first 10 s in the Service " + cells[8] + " the steady p99",
		"rollout " + cells[11],
		"start → Ready " + strings.Fields(cells[12])[0] + " s",
		"the pods in service " + strings.TrimSpace(strings.Split(cells[10], "/")[1]) + " the steady p99 while a pod is warmed",
	}
	for _, tg := range rollout.Targets(s) {
		if tg.Arm == arm {
			wants = append(wants, strings.Fields(tg.Duration.Figure)[0]+" `off`'s")
		}
	}
	containsAll(t, arm+"'s row (against the report's table)", row, wants...)
	return row
}

// The rows link each study to the page that holds it, or to its report without one, from the
// page the rows are on.
func TestRowsLinkTheStudysPage(t *testing.T) {
	r := NewRepo(root)
	page := "e2e/studies/testdata/pages/README.md"
	doc := "# P\n\n<!-- generated: rollout-rows pages=e2e/studies/testdata/pages\n" +
		"a | `x: 1` | results/rollout/nolimit-builtin-quarter.json on_default\n" +
		"b | – | results/rollout/latest.json off\n-->\n<!-- /generated -->\n"
	out, _, err := r.CheckText(page, doc)
	if err != nil {
		t.Fatal(err)
	}
	containsAll(t, "the rows", out,
		"| your broker | set | measured on the test bed |\n|---|---|---|\n",
		"| a | `x: 1` | lost 0, 0, 0 per rollout, 0 in the scale-out; ",
		"; [nolimit-builtin-quarter](rollout.md) |\n",
		"| b | – | lost 0, 81, 1351 per rollout",
		"; [latest](../../../../results/rollout/latest.md) |\n",
	)
}
