package bench

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// saveTrace writes a restart's per-query records (gzip JSON) next to the logs, for plots and
// for anyone who wants to recompute the figures.
func saveTrace(path string, tr *coldstart.Trace) error {
	f, err := os.Create(path + ".gz")
	if err != nil {
		return fmt.Errorf("save trace: %w", err)
	}
	zw := gzip.NewWriter(f)
	if err := json.NewEncoder(zw).Encode(tr); err != nil {
		f.Close()
		return fmt.Errorf("save trace %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("save trace %s: %w", path, err)
	}
	return f.Close()
}

// LoadTrace reads a trace saveTrace wrote.
func LoadTrace(path string) (*coldstart.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load trace: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("load trace %s: %w", path, err)
	}
	var tr coldstart.Trace
	if err := json.NewDecoder(zr).Decode(&tr); err != nil {
		return nil, fmt.Errorf("load trace %s: %w", path, err)
	}
	return &tr, nil
}
