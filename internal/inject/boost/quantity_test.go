package boost

import "testing"

func TestSameQuantity(t *testing.T) {
	same := [][2]string{{"1Gi", "1024Mi"}, {"1", "1000m"}, {"1.25Gi", "1280Mi"}, {"2", "2.0"}, {"1e3", "1k"}, {"", ""}, {"0.5", "500m"}}
	for _, p := range same {
		if !sameQuantity(p[0], p[1]) {
			t.Errorf("%q and %q: want the same amount", p[0], p[1])
		}
	}
	differ := [][2]string{{"1Gi", "1G"}, {"2", "2001m"}, {"1", ""}, {"", "1"}, {"x", "x"}, {"1Gi", "1Gib"}}
	for _, p := range differ {
		if sameQuantity(p[0], p[1]) {
			t.Errorf("%q and %q: want different amounts (or unreadable)", p[0], p[1])
		}
	}
}
