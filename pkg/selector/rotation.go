package selector

// Rotation hands out items in round-robin order, n at a time. Its cursor is kept
// reduced modulo len(items): a free-running counter would overflow (or wrap) and
// break the order. The zero value is an empty rotation.
type Rotation struct {
	items []string
	next  uint64 // always < len(items) once items is non-empty
}

// NewRotation starts a rotation over items at position start (taken modulo
// len(items)).
func NewRotation(items []string, start uint64) *Rotation {
	if len(items) > 0 {
		start %= uint64(len(items))
	}
	return &Rotation{items: items, next: start}
}

// Batch returns the next n items in order, wrapping around; an item repeats within
// one batch only when n > len(items). Empty items → nil.
func (r *Rotation) Batch(n int) []string {
	if len(r.items) == 0 || n <= 0 {
		return nil
	}
	out := make([]string, n)
	l := uint64(len(r.items))
	for i := range out {
		out[i] = r.items[r.next]
		r.next = (r.next + 1) % l
	}
	return out
}
