package studies

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// studiesDir holds the study pages, one per study; its README.md is their index.
const studiesDir = "docs/studies"

// studyPage is what the index reads of a study page: its H1 title, its hand-written result and
// (for a page whose JSON has no date) when, and the study JSON its blocks name, by kind.
type studyPage struct {
	path, title, result, when string
	files                     []studyFile
}

type studyFile struct{ path, kind string }

// studyPages are the pages of dir (from the root; docs/studies without one), but its README.md
// and the page asking, sorted by path.
func (r *Repo) studyPages(c call) ([]studyPage, error) {
	dir := c.opts["pages"]
	if dir == "" {
		dir = studiesDir
	}
	dir = path.Clean(dir)
	entries, err := os.ReadDir(r.path(dir))
	if err != nil {
		return nil, fmt.Errorf("pages=%s: %w", dir, err)
	}
	var pages []studyPage
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || e.Name() == "README.md" || p == c.page {
			continue
		}
		sp, err := r.readStudyPage(p)
		if err != nil {
			return nil, err
		}
		pages = append(pages, sp)
	}
	return pages, nil
}

func (r *Repo) readStudyPage(p string) (studyPage, error) {
	b, err := os.ReadFile(r.path(p))
	if err != nil {
		return studyPage{}, err
	}
	text := string(b)
	sp := studyPage{path: p}
	first, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(first, "# ") {
		return sp, fmt.Errorf("%s:1: a study page begins with its title, `# what the study measured`", p)
	}
	sp.title = strings.TrimSpace(strings.TrimPrefix(first, "# "))
	blocks, err := Parse(text)
	if err != nil {
		return sp, at(p, err)
	}
	for n, line := range handWritten(text, blocks) {
		switch {
		case sp.result == "" && strings.HasPrefix(line, "**Result:**"):
			if sp.result = strings.TrimSpace(strings.TrimPrefix(line, "**Result:**")); sp.result == "" {
				return sp, fmt.Errorf("%s:%d: an empty **Result:** line", p, n+1)
			}
		case sp.when == "" && strings.HasPrefix(line, "**When:**"):
			sp.when = strings.TrimSpace(strings.TrimPrefix(line, "**When:**"))
		}
	}
	if sp.result == "" {
		return sp, fmt.Errorf("%s: no `**Result:** <the result in a phrase>.` line: the index shows it", p)
	}
	for _, bl := range blocks {
		v, ok := views[bl.View]
		if !ok || v.kind == "" || len(bl.Args) == 0 {
			continue // the page's own test names the bad block
		}
		f := studyFile{path: path.Clean(bl.Args[0]), kind: v.kind}
		if !slices.Contains(sp.files, f) {
			sp.files = append(sp.files, f)
		}
	}
	return sp, nil
}

// handWritten are text's lines (indexed from 0) outside fenced code and the blocks' bodies,
// trimmed; the others are "".
func handWritten(text string, blocks []Block) []string {
	lines := strings.Split(text, "\n")
	out := make([]string, len(lines))
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		if !fenced {
			out[i] = strings.TrimSpace(l)
		}
	}
	for _, b := range blocks {
		for i := b.body; i < b.end; i++ {
			out[i] = ""
		}
	}
	return out
}

// pageOf is the study page that holds file in a block ("" when none does).
func pageOf(pages []studyPage, file string) string {
	for _, p := range pages {
		for _, f := range p.files {
			if f.path == file {
				return p.path
			}
		}
	}
	return ""
}
