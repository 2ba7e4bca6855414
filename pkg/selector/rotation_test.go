package selector

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestRotationBatch(t *testing.T) {
	abc := []string{"a", "b", "c"}
	cases := []struct {
		name    string
		items   []string
		start   uint64
		batches []int
		want    [][]string
	}{
		{"advances in order", abc, 0, []int{1, 1, 1}, [][]string{{"a"}, {"b"}, {"c"}}},
		{"wraps around to the first item", abc, 0, []int{2, 2, 2}, [][]string{{"a", "b"}, {"c", "a"}, {"b", "c"}}},
		{"n equal to len gives each item once", abc, 1, []int{3}, [][]string{{"b", "c", "a"}}},
		{"n > len repeats items in order", abc, 0, []int{7}, [][]string{{"a", "b", "c", "a", "b", "c", "a"}}},
		{"start beyond len is taken modulo len", abc, 4, []int{2}, [][]string{{"b", "c"}}},
		{"one item always", []string{"x"}, 0, []int{1, 3}, [][]string{{"x"}, {"x", "x", "x"}}},
		{"empty items give nil", nil, 0, []int{1, 5}, [][]string{nil, nil}},
		{"n of 0 gives nil and does not advance", abc, 0, []int{0, 1}, [][]string{nil, {"a"}}},
		{"negative n gives nil", abc, 0, []int{-1, 1}, [][]string{nil, {"a"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRotation(tc.items, tc.start)
			for i, n := range tc.batches {
				if got := r.Batch(n); !reflect.DeepEqual(got, tc.want[i]) {
					t.Errorf("batch %d (n=%d) = %q, want %q", i, n, got, tc.want[i])
				}
			}
		})
	}
}

// A cursor started near the top of uint64 wraps without breaking the round-robin:
// 2^64 is not a multiple of most lengths, so a naive counter % len would repeat or
// skip an item when the counter overflows.
func TestRotationSurvivesOverflow(t *testing.T) {
	for _, items := range [][]string{
		{"a", "b", "c"},
		{"a", "b", "c", "d", "e"},
		{"a", "b", "c", "d", "e", "f", "g"},
		{"a", "b"},
	} {
		for _, start := range []uint64{math.MaxUint64 - 1, math.MaxUint64, math.MaxUint64 - 5} {
			for _, n := range []int{1, 2, 3} {
				r := NewRotation(items, start)
				var seq []string
				for range 12 {
					seq = append(seq, r.Batch(n)...)
				}
				// Round-robin: every item follows its predecessor, whatever the start.
				for i := 1; i < len(seq); i++ {
					prev := indexOf(items, seq[i-1])
					if want := items[(prev+1)%len(items)]; seq[i] != want {
						t.Fatalf("items %q start %d n %d: sequence %s breaks round-robin at %d (%s after %s, want %s)",
							items, start, n, strings.Join(seq, ""), i, seq[i], seq[i-1], want)
					}
				}
				if first, want := seq[0], items[start%uint64(len(items))]; first != want {
					t.Fatalf("items %q start %d: first item %s, want %s", items, start, first, want)
				}
			}
		}
	}
}

func indexOf(items []string, s string) int {
	for i, it := range items {
		if it == s {
			return i
		}
	}
	return -1
}
