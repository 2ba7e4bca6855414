package cluster

import (
	"fmt"
	"path/filepath"
	"strings"
)

// PinotVersion is the version of the Pinot jars in use, read from the pinot-broker jar's name
// (e.g. "1.5.1"), so facts and scenarios can say which broker they describe.
func (c *Cluster) PinotVersion() string {
	v, _ := versionOfLib(c.lib)
	return v
}

func versionOfLib(lib string) (string, error) {
	m, err := filepath.Glob(filepath.Join(lib, "pinot-broker-*.jar"))
	if err != nil || len(m) == 0 {
		return "", fmt.Errorf("no pinot-broker jar in %s", lib)
	}
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m[0]), "pinot-broker-"), ".jar"), nil
}

// AtLeast1x reports whether the cluster runs Pinot 1.0 or newer (the multi-stage engine, the
// quota endpoint, /start-time, HTTP 401/403 for refused credentials).
func (c *Cluster) AtLeast1x() bool {
	v := c.PinotVersion()
	return v != "" && !strings.HasPrefix(v, "0.")
}
