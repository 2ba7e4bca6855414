package studies

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/rollout"
)

// Repo renders the generated blocks of one repository's pages, each study read once.
type Repo struct {
	root    string
	studies map[string]any // by path from the root
}

// NewRepo is the repository whose root directory is root.
func NewRepo(root string) *Repo { return &Repo{root: root, studies: map[string]any{}} }

// Mismatch is a block whose committed body is not what its view renders.
type Mismatch struct {
	Line          int
	View          string
	Committed, Is string
}

// Check renders every block of page (a path from the root): the page as it should be, the
// blocks whose committed body differs, and the blocks that could not render, each error at
// its page and line.
func (r *Repo) Check(page string) (string, []Mismatch, error) {
	b, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(page)))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", page, err)
	}
	return r.CheckText(page, string(b))
}

// CheckText is Check of text, as the page at page.
func (r *Repo) CheckText(page, text string) (string, []Mismatch, error) {
	var mismatches []Mismatch
	var errs []error
	updated, err := Rewrite(text, func(b Block) (string, error) {
		out, err := r.render(page, b)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %w", page, b.Line, b.View, err))
			return "", nil // the others still render: every bad block is named
		}
		if BodyOf(out) != b.Body {
			mismatches = append(mismatches, Mismatch{Line: b.Line, View: b.View, Committed: b.Body, Is: BodyOf(out)})
		}
		return out, nil
	})
	if err != nil {
		return "", nil, at(page, err)
	}
	return updated, mismatches, errors.Join(errs...)
}

// at is err on page: at its line for a malformed block.
func at(page string, err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %s", page, pe.Line, pe.Msg)
	}
	return fmt.Errorf("%s: %w", page, err)
}

func (r *Repo) render(page string, b Block) (string, error) {
	v, c, err := r.callOf(page, b)
	if err != nil {
		return "", err
	}
	return v.render(r, c)
}

// Pages are the repository's Markdown files (paths from the root), but those under .git, bin,
// dist and testdata.
func (r *Repo) Pages() ([]string, error) {
	var pages []string
	err := filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains([]string{".git", "bin", "dist", "testdata"}, d.Name()) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, err := filepath.Rel(r.root, p)
		if err != nil {
			return err
		}
		pages = append(pages, filepath.ToSlash(rel))
		return nil
	})
	return pages, err
}

// file is name, a path from the root, checked: inside the repository, and there.
func (r *Repo) file(name string) (string, error) {
	clean := path.Clean(name)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s: not a path inside the repository, from its root", name)
	}
	if _, err := os.Stat(r.path(clean)); err != nil {
		return "", fmt.Errorf("%s: no such file (paths are from the repository's root)", name)
	}
	return clean, nil
}

// path is a path from the root on this machine.
func (r *Repo) path(name string) string { return filepath.Join(r.root, filepath.FromSlash(name)) }

// link is target (from the root) as a link written on page.
func link(page, target string) string {
	rel, err := filepath.Rel(filepath.Dir(filepath.FromSlash(page)), filepath.FromSlash(target))
	if err != nil { // both are relative to the root: cannot happen
		return target
	}
	return filepath.ToSlash(rel)
}

func (r *Repo) rollout(file string) (*rollout.Study, error) {
	return load(r, file, rollout.ReadStudy, func(s *rollout.Study) bool { return s.Brokers > 0 })
}

func (r *Repo) coldstart(file string) (*coldstart.Study, error) {
	return load(r, file, coldstart.ReadStudy, func(s *coldstart.Study) bool { return s.ColdWindow.End > 0 })
}

func (r *Repo) steady(file string) (*bench.SteadyStudy, error) {
	return load(r, file, bench.ReadSteady, func(s *bench.SteadyStudy) bool { return len(s.Modes) > 0 })
}

// load reads file once, by read, and keeps it; is says whether the JSON is that kind of study
// (a JSON of another kind decodes, to zeros).
func load[T any](r *Repo, file string, read func(string) (*T, error), is func(*T) bool) (*T, error) {
	if s, ok := r.studies[file]; ok {
		if t, ok := s.(*T); ok {
			return t, nil
		}
		return nil, fmt.Errorf("%s: another kind of study than this view reads", file)
	}
	t, err := read(r.path(file))
	if err != nil {
		return nil, err
	}
	if !is(t) {
		return nil, fmt.Errorf("%s: another kind of study than this view reads", file)
	}
	r.studies[file] = t
	return t, nil
}
