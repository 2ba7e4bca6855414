package main

import (
	"io"

	injectcmd "github.com/warmup-sidecar/warmup-sidecar/internal/inject"
)

// inject is the Helm post-renderer: manifests on stdin, the same with the sidecar
// added to every Pinot broker StatefulSet on stdout.
func inject(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return injectcmd.Main(args, stdin, stdout, stderr)
}
