package main

import (
	"fmt"
	"io"
)

// inject is the Helm post-renderer. It is wired to internal/inject once that lands.
func inject(_ []string, _ io.Reader, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "warmup-sidecar inject: not built into this binary yet")
	return exitBadConfig
}
