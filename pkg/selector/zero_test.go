package selector

import (
	"reflect"
	"testing"
)

// Zero and nil inputs give empty answers, never a panic: a caller may hold a zero
// Rotation, an empty cluster or a cap of 0.
func TestZeroInputs(t *testing.T) {
	var r Rotation
	if got := r.Batch(3); got != nil {
		t.Errorf("zero Rotation.Batch(3) = %q, want nil", got)
	}
	if got := NewRotation(nil, 7).Batch(2); got != nil {
		t.Errorf("NewRotation(nil, 7).Batch(2) = %q, want nil", got)
	}
	if got := NewRotation([]string{"a"}, 0).Batch(-1); got != nil {
		t.Errorf("Batch(-1) = %q, want nil", got)
	}
	for _, max := range []int{0, -1} {
		c := Cover([]Table{tbl("a", "s1")}, max)
		if len(c.Chosen) != 0 || !reflect.DeepEqual(c.Uncovered, []string{"s1"}) {
			t.Errorf("Cover(maxTables %d) = %+v, want nothing chosen and s1 uncovered", max, c)
		}
	}
	if c := Cover(nil, 5); len(c.Chosen) != 0 || len(c.Universe) != 0 || len(c.Uncovered) != 0 {
		t.Errorf("Cover(nil) = %+v, want empty", c)
	}
	if kept, dropped := Routable(nil, nil); kept != nil || dropped != nil {
		t.Errorf("Routable(nil, nil) = %v, %v", kept, dropped)
	}
	if kept, dropped := Routable([]string{"a"}, nil); kept != nil || !reflect.DeepEqual(dropped, []string{"a"}) {
		t.Errorf("Routable with no routes = %v, %v; want a dropped", kept, dropped)
	}
	if got := Legs(nil); got != nil {
		t.Errorf("Legs(nil) = %q", got)
	}
	if got := TableFromRouting("t", nil); !reflect.DeepEqual(got, Table{Name: "t"}) {
		t.Errorf("TableFromRouting(t, nil) = %+v", got)
	}
	if got := Uncovered(nil, nil); len(got) != 0 {
		t.Errorf("Uncovered(nil, nil) = %q", got)
	}
}
