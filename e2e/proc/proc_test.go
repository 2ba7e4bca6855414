package proc

import (
	"bytes"
	"testing"
)

func TestPrefixWriterKeepsLinesWhole(t *testing.T) {
	var out bytes.Buffer
	pw := &prefixWriter{prefix: "[x] ", w: &out}
	pw.Write([]byte("one\ntw"))
	pw.Write([]byte("o\n"))
	if out.String() != "[x] one\n[x] two\n" {
		t.Errorf("got %q", out.String())
	}
}
