package markdown

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is an operator's page an operator reads in minutes: studies live in their own pages.
const readmeMaxLines = 300

func TestReadmeIsAnOperatorsPage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail to docs/ or a study page", n, readmeMaxLines)
	}
}

// workLog: what a work log says and a product document does not (an issue's number, a session).
var workLog = regexp.MustCompile(`(?i)\bissues? #?[0-9]+|\bthis session\b|\bwork session\b`)

// The product's documents speak of the product: the README, docs/ and the chart's README name a
// study by what it measured, never by the issue or the session that asked for it.
func TestProductDocsSpeakOfTheProduct(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{"README.md", filepath.Join("charts", "pinot-broker-warmup", "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := workLog.FindString(line); m != "" {
				t.Errorf("%s:%d: %q: name it by what it is", f, i+1, m)
			}
		}
	}
}
