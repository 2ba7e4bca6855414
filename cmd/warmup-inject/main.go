// Command warmup-inject is a Helm post-renderer: it adds the warmup sidecar, rendered from the
// embedded pinot-broker-warmup chart with Helm's own library, to every Pinot broker StatefulSet
// of the manifests on stdin. It runs on the operator's machine, never in the broker pod:
//
//	helm install pinot pinot/pinot --post-renderer warmup-inject \
//	  --post-renderer-args --values=warmup-values.yaml
//
// See README.md ("Install") and charts/pinot-broker-warmup/README.md.
package main

import (
	"os"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject"
)

func main() { os.Exit(inject.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
