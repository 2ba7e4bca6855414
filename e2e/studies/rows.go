package studies

import (
	"fmt"
	"path"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/rollout"
)

// rolloutRows is a comparison table for the README: per spec line `label | values | FILE ARM`,
// the label and values as written and what FILE's arm ARM measured (rollout.ArmRow: the
// per-arm table's figures), linked to the study's page (its report without one).
func rolloutRows(r *Repo, c call) (string, error) {
	pages, err := r.studyPages(c)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| your broker | set | measured on the test bed |\n|---|---|---|\n")
	for _, line := range c.spec {
		label, values, file, arm, err := rowSpec(line)
		if err != nil {
			return "", err
		}
		if file, err = r.file(file); err != nil {
			return "", fmt.Errorf("row %q: %w", line, err)
		}
		s, err := r.rollout(file)
		if err != nil {
			return "", fmt.Errorf("row %q: %w", line, err)
		}
		cell, err := rollout.ArmRow(s, arm)
		if err != nil {
			return "", fmt.Errorf("row %q: %s: %w", line, file, err)
		}
		target := pageOf(pages, file)
		if target == "" {
			if target, err = r.file(strings.TrimSuffix(file, ".json") + ".md"); err != nil {
				return "", fmt.Errorf("row %q: no study page holds %s, and its report: %w", line, file, err)
			}
		}
		name := strings.TrimSuffix(path.Base(file), ".json")
		fmt.Fprintf(&b, "| %s | %s | %s; [%s](%s) |\n", label, values, cell, name, link(c.page, target))
	}
	return b.String(), nil
}

// rowSpec splits `label | values | FILE ARM`.
func rowSpec(line string) (label, values, file, arm string, err error) {
	parts := strings.Split(line, "|")
	if len(parts) != 3 {
		return "", "", "", "", fmt.Errorf("row %q: want `label | values | FILE ARM`", line)
	}
	study := strings.Fields(parts[2])
	if len(study) != 2 {
		return "", "", "", "", fmt.Errorf("row %q: want `FILE ARM` after the second |", line)
	}
	return strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), study[0], study[1], nil
}
