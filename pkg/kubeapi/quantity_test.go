package kubeapi

import "testing"

func TestParseCPU(t *testing.T) {
	good := map[string]int64{
		"500m": 500, "1": 1000, "2": 2000, "1.5": 1500, "0.25": 250, "1500m": 1500, "0": 0,
		"0.0001": 1, "100u": 1, "2k": 2_000_000, "1000000n": 1, "0.5m": 1,
	}
	for in, want := range good {
		got, err := ParseCPU(in)
		if err != nil || got != want {
			t.Errorf("ParseCPU(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "m", "-1", "1Gi", "1e3", " 1", "1 ", "one", "1.", ".5", "2000000", "1E"} {
		if got, err := ParseCPU(bad); err == nil {
			t.Errorf("ParseCPU(%q) = %d, want an error", bad, got)
		}
	}
}

func TestFormatCPU(t *testing.T) {
	for milli, want := range map[int64]string{1000: "1", 2000: "2", 1500: "1500m", 250: "250m", 0: "0"} {
		if got := FormatCPU(milli); got != want {
			t.Errorf("FormatCPU(%d) = %q, want %q", milli, got, want)
		}
	}
}
