package redact

import (
	"strings"
	"testing"
)

// BenchmarkMaskAnswer: the largest answer the Pinot client reads (1 MiB), an
// HTML page with escapes, masked for a Basic header: what one failed probe
// costs at most.
func BenchmarkMaskAnswer(b *testing.B) {
	page := strings.Repeat("<p>Service&#32;Unavailable: upstream 10.0.0.1 refused, retry in 5%2Fs</p>\n", (1<<20)/76)
	m := New(Header("Basic d2FybXVwLXNpZGVjYXI6ZnV6ei1ob3JzZS1iYXR0ZXJ5LTQxNw==")...)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		m.Mask(page)
	}
}
