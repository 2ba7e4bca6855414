package edit

import (
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

func TestAOTCacheKey(t *testing.T) {
	on := map[string]any{"brokerJvm": map[string]any{"aotCache": map[string]any{"enabled": true, "key": ""}}}
	long := "registry.example.com/" + strings.Repeat("team/", 50) + "pinot:1.6.0"
	for image, want := range map[string]string{
		"apachepinot/pinot:1.6.0-21-ms-openjdk":  "apachepinot-pinot-1.6.0-21-ms-openjdk",
		"reg.example:5000/pinot@sha256:0123abcd": "reg.example-5000-pinot-sha256-0123abcd",
		"":                                       "",
	} {
		if got, derived := AOTCacheKey(on, find.Broker{Image: image}); got != want || derived != (want != "") {
			t.Errorf("AOTCacheKey(%q) = %q, %v; want %q", image, got, derived, want)
		}
	}
	k1, _ := AOTCacheKey(on, find.Broker{Image: long})
	k2, _ := AOTCacheKey(on, find.Broker{Image: strings.Replace(long, "1.6.0", "1.6.1", 1)})
	if len(k1) != maxAOTKey || k1 == k2 || !strings.HasPrefix(k1, "registry.example.com-team-") {
		t.Errorf("long references: %q and %q, want %d characters each, different", k1, k2, maxAOTKey)
	}
	on["brokerJvm"].(map[string]any)["aotCache"].(map[string]any)["key"] = "pinot-jdk25"
	if got, derived := AOTCacheKey(on, find.Broker{Image: "x:y"}); got != "pinot-jdk25" || derived {
		t.Errorf("a set key: %q, %v; want it kept", got, derived)
	}
}
