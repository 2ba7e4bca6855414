package bench

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// cpuScript is a sample func replaying busy shares of one second each.
func cpuScript(shares ...float64) func() (float64, float64, error) {
	var busy, total float64
	i := -1
	return func() (float64, float64, error) {
		if i >= 0 {
			s := shares[min(i, len(shares)-1)]
			busy += s
			total++
		}
		i++
		return busy, total, nil
	}
}

func TestWaitQuietWantsReadingsInARow(t *testing.T) {
	// Busy, one quiet reading, busy again, then three quiet: seven readings.
	res, err := waitQuiet(context.Background(), cpuScript(0.9, 0.1, 0.8, 0.2, 0.1, 0.05), time.Millisecond, time.Minute)
	if err != nil || !res.Quiet || math.Abs(res.Busy-0.05) > 1e-9 {
		t.Fatalf("waitQuiet = %+v, %v; want quiet at the last reading (5 %%)", res, err)
	}
}

func TestWaitQuietGivesUpAtItsLimit(t *testing.T) {
	res, err := waitQuiet(context.Background(), cpuScript(0.95), time.Millisecond, 20*time.Millisecond)
	if err != nil || res.Quiet || math.Abs(res.Busy-0.95) > 1e-9 || res.Waited < 20*time.Millisecond {
		t.Fatalf("waitQuiet = %+v, %v; want not quiet after the limit", res, err)
	}
	if got := res.String(); got != "machine not quiet after 0s (CPU 95 % busy): restarted anyway" {
		t.Errorf("String() = %q", got)
	}
}

func TestWaitQuietStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := waitQuiet(ctx, cpuScript(0.95), time.Second, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	broken := func() (float64, float64, error) { return 0, 0, errors.New("no /proc/stat") }
	if _, err := waitQuiet(context.Background(), broken, time.Millisecond, time.Minute); err == nil {
		t.Error("a failing sample: want its error")
	}
}
