package selector

import (
	"math"
	"reflect"
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

// The rotation cannot overflow because its cursor is always reduced modulo
// len(items): right after NewRotation (whatever the start, up to 2^64-1) and
// after every batch. A free-running counter would grow past len and, near 2^64,
// wrap and break the order; this checks the invariant that rules that out, and
// the order it gives.
func TestRotationCursorStaysReduced(t *testing.T) {
	for _, items := range [][]string{
		{"a"},
		{"a", "b"},
		{"a", "b", "c"},
		{"a", "b", "c", "d", "e", "f", "g"},
	} {
		l := uint64(len(items))
		for _, start := range []uint64{0, 1, l, math.MaxUint64 - 5, math.MaxUint64 - 1, math.MaxUint64} {
			r := NewRotation(items, start)
			if r.next >= l {
				t.Fatalf("items %q start %d: cursor %d after NewRotation, want < %d", items, start, r.next, l)
			}
			pos := start % l // where the k-th item handed out must come from
			for _, n := range []int{1, 2, 3, 5, 7, 11, 64} {
				for i, got := range r.Batch(n) {
					if want := items[pos]; got != want {
						t.Fatalf("items %q start %d batch of %d: item %d is %s, want %s", items, start, n, i, got, want)
					}
					pos = (pos + 1) % l
				}
				if r.next >= l {
					t.Fatalf("items %q start %d: cursor %d after a batch of %d, want < %d", items, start, r.next, n, l)
				}
			}
		}
	}
}
