package bench

import (
	"fmt"
	"path/filepath"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// LoadTraces reads the per-query traces a study saved in dir (<arm>-<n>.json.gz), for every
// restart of s.
func LoadTraces(dir string, s *coldstart.Study) (Traces, error) {
	t := Traces{}
	for _, arm := range s.ArmNames() {
		for i := range s.Arms[arm].Restarts {
			tr, err := LoadTrace(filepath.Join(dir, fmt.Sprintf("%s-%d.json.gz", arm, i+1)))
			if err != nil {
				return nil, err
			}
			t[arm] = append(t[arm], tr)
		}
	}
	return t, nil
}
