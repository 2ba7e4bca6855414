package studies

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated blocks in place from their JSON")

// root is the repository's, from this package.
const root = "../.."

// Every generated block of the repository's Markdown is what its JSON renders today: no figure
// of a study page, the index or the README is typed by hand.
func TestDocsRenderFromTheirResults(t *testing.T) {
	r := NewRepo(root)
	pages, err := r.Pages()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pages, "README.md") || !slices.Contains(pages, "docs/design.md") {
		t.Fatalf("README.md or docs/design.md not among the pages found from %s: %q", root, pages)
	}
	if slices.ContainsFunc(pages, func(p string) bool { return strings.Contains(p, "testdata/") }) {
		t.Fatal("a testdata page walked: its blocks are this package's tests'")
	}
	checkPages(t, r, pages)
}

// The testdata pages are current too (the link test reads them as any page).
func TestDocsInTestdataRenderFromTheirResults(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("testdata", "pages", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no testdata page: %v", err)
	}
	for i, p := range pages {
		pages[i] = "e2e/studies/" + filepath.ToSlash(p)
	}
	checkPages(t, NewRepo(root), pages)
}

// checkPages fails for every block of pages not as its view renders it, with a short diff; with
// -update it rewrites them.
func checkPages(t *testing.T, r *Repo, pages []string) {
	t.Helper()
	blocks := 0
	for _, p := range pages {
		updated, mismatches, err := r.Check(p)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, m := range mismatches {
			msg := fmt.Sprintf("%s:%d: %s: the committed block is not what its JSON renders (go test ./e2e/studies -run TestDocs -update rewrites it)\n%s", p, m.Line, m.View, diff(m.Committed, m.Is))
			if *update {
				t.Log(msg)
			} else {
				t.Error(msg)
			}
		}
		if *update && len(mismatches) > 0 {
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), []byte(updated), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n, _ := Parse(updated)
		blocks += len(n)
	}
	t.Logf("%d generated blocks in %d pages", blocks, len(pages))
}

// diff is where committed and is first differ: a few lines of each, each long line cut around
// its first difference.
func diff(committed, is string) string {
	a, b := strings.Split(committed, "\n"), strings.Split(is, "\n")
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	var out strings.Builder
	fmt.Fprintf(&out, "first difference at line %d of the block's body (- committed, + rendered):\n", i+1)
	col := 0
	if i < len(a) && i < len(b) {
		for col < len(a[i]) && col < len(b[i]) && a[i][col] == b[i][col] {
			col++
		}
	}
	for _, side := range []struct {
		mark  string
		lines []string
	}{{"-", a}, {"+", b}} {
		for k := i; k < min(len(side.lines), i+3); k++ {
			c := 0
			if k == i {
				c = col
			}
			out.WriteString(side.mark + " " + clip(side.lines[k], c) + "\n")
		}
	}
	return out.String()
}

// clip is line cut to about 160 bytes around col.
func clip(line string, col int) string {
	from, to := max(0, col-80), min(len(line), col+80)
	for from > 0 && !isStart(line[from]) {
		from--
	}
	for to < len(line) && !isStart(line[to]) {
		to++
	}
	s := line[from:to]
	if from > 0 {
		s = "…" + s
	}
	if to < len(line) {
		s += "…"
	}
	return s
}

// isStart: b begins a UTF-8 character.
func isStart(b byte) bool { return b&0xC0 != 0x80 }

// containsAll fails for each of wants that out, what is named, lacks.
func containsAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, out)
		}
	}
}
