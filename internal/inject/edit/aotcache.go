package edit

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// maxAOTKey is the longest cache key (the schema's brokerJvm.aotCache.key maxLength).
const maxAOTKey = 200

var notKeyChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// AOTCacheKey is the cache file's name stem for one broker: brokerJvm.aotCache.key when set,
// else derived from the broker container's image reference (derived true), so that another
// image, with another JDK build or other jars, looks for another file and finds none, instead
// of a stale cache. A long reference keeps its start and a hash of the whole.
func AOTCacheKey(values map[string]any, t find.Broker) (key string, derived bool) {
	if on, _ := chartvalues.Lookup(values, "brokerJvm", "aotCache", "enabled").(bool); !on {
		return "", false
	}
	if k, _ := chartvalues.Lookup(values, "brokerJvm", "aotCache", "key").(string); k != "" {
		return k, false
	}
	key = notKeyChar.ReplaceAllString(t.Image, "-")
	if len(key) > maxAOTKey {
		sum := sha256.Sum256([]byte(t.Image))
		key = key[:maxAOTKey-17] + "-" + hex.EncodeToString(sum[:8])
	}
	return key, key != ""
}

// AddBrokerMounts puts the rendered volume mounts into the broker container, replacing any of
// the same name (a second run leaves one of each). Reports whether the document changed.
func AddBrokerMounts(stsRoot *yaml.Node, containerName string, mounts []*yaml.Node) bool {
	if len(mounts) == 0 {
		return false
	}
	broker := yamlnode.NamedEntry(yamlnode.At(stsRoot, "spec", "template", "spec", "containers"), containerName)
	if broker == nil {
		return false
	}
	names := map[string]bool{}
	for _, m := range mounts {
		names[yamlnode.NameOf(m)] = true
	}
	removeNamed(yamlnode.MapValue(broker, "volumeMounts"), names)
	return appendAll(broker, "volumeMounts", mounts)
}
