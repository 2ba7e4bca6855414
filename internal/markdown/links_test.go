package markdown

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every relative link of the repository's Markdown names a file or directory
// that exists, and an anchor its target's headings make.
func TestRepositoryLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	docs := map[string]string{} // path from root → text
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		docs[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs["README.md"] == "" || docs["docs/design.md"] == "" {
		t.Fatalf("README.md or docs/design.md not found from %s", root)
	}
	checked := 0
	for name, text := range docs {
		for _, l := range Links(text) {
			if strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(l.Target, "#")
			target := name
			if path != "" {
				target = filepath.ToSlash(filepath.Join(filepath.Dir(name), path))
				if _, err := os.Stat(filepath.Join(root, target)); err != nil {
					t.Errorf("%s:%d: link %s: no such file or directory", name, l.Line, l.Target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			text, ok := docs[target]
			if !ok {
				t.Errorf("%s:%d: link %s: an anchor into a file that is not Markdown", name, l.Line, l.Target)
			} else if !Anchors(text)[anchor] {
				t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", name, l.Line, l.Target, target, anchor)
			}
		}
	}
	t.Logf("%d relative links checked in %d files", checked, len(docs))
}
