package schedule

import (
	"slices"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// cappedPacer is the pacer of a run capped at maxRate, on a clock the test moves.
func cappedPacer(maxRate float64, now *time.Time) *pacer {
	r := &Schedule{Settings: Settings{MaxRate: maxRate}, Now: func() time.Time { return *now }}
	return r.paced()
}

// Under the cap a worker finds nothing free until the next token, and the
// query it then gets is the rotation's next: the cap skips no query, so every
// shape keeps its turn however tight the cap.
func TestCapHoldsEveryQueryInTurn(t *testing.T) {
	now := time.Unix(1000, 0)
	p := cappedPacer(10, &now)
	rot := selector.NewRotation([]string{"a", "b", "c"}, 0)
	var got []string
	for range 6 {
		b, _ := p.pick(rot, 1, 3)
		if len(b) == 1 {
			if w, _ := p.reserve(b[0]); w != 0 {
				t.Fatalf("picked %q free, then its slot is %s away", b[0], w)
			}
			got = append(got, b[0])
		}
		if held, wait := p.pick(rot, 1, 3); len(held) != 0 || wait != 100*time.Millisecond {
			t.Fatalf("right after %q: picked %q, wait %s; want nothing for 100 ms at 10/s", b, held, wait)
		}
		now = now.Add(100 * time.Millisecond)
	}
	if want := []string{"a", "b", "c", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("capped picks %q, want the rotation's order %q", got, want)
	}
}

// A custom query (or a no-scatter one, or the engine's detection) waits for its
// slot: a batch of four at 20/s goes out 50 ms apart.
func TestCapSpacesABatch(t *testing.T) {
	now := time.Unix(1000, 0)
	p := cappedPacer(20, &now)
	var waits []time.Duration
	for range 4 {
		w, _ := p.reserve("SELECT 1")
		waits = append(waits, w)
	}
	if want := []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
}

// Without a cap the pacer holds nothing back that names no quota'd table.
func TestNoCapNoWait(t *testing.T) {
	now := time.Unix(1000, 0)
	p := cappedPacer(0, &now)
	rot := selector.NewRotation([]string{"a"}, 0)
	for range 100 {
		if b, wait := p.pick(rot, 1, 1); len(b) != 1 || wait != 0 {
			t.Fatalf("uncapped pick: %q, wait %s", b, wait)
		}
		if w, taken := p.reserve("a"); w != 0 || len(taken) != 0 {
			t.Fatalf("uncapped reserve: wait %s, %d slots", w, len(taken))
		}
	}
}
