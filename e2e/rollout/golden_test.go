package rollout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every study in results/rollout re-renders from its JSON to the report committed beside it: a
// change to the report adds what new studies measure, and leaves what old ones said as it was.
func TestCommittedStudiesRenderAsCommitted(t *testing.T) {
	studies, err := filepath.Glob(filepath.Join("..", "..", "results", "rollout", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(studies) == 0 {
		t.Fatal("no study in results/rollout")
	}
	for _, path := range studies {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".md")
			if err != nil {
				t.Skipf("no committed report: %v", err)
			}
			s, err := ReadStudy(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := Markdown(s, name); got != string(want) {
				t.Errorf("%s renders otherwise than its committed report (first difference at byte %d)", name, firstDiff(got, string(want)))
			}
		})
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
