package coldstart

import (
	"fmt"
	"strings"
)

// Named mixes of the study (coldstart-bench --mix). Each is over the e2e benchmark table
// and different in shape from the others; the sidecar never sees them, except as the
// on_custom arm's WARMUP_QUERY.
const (
	MixBuiltin   = "builtin"
	MixDashboard = "dashboard"
	MixAPI       = "api"
	MixMSE       = "mse"
	MixReduce    = "reduce"
)

// MixNames lists the named mixes, the built-in one first.
var MixNames = []string{MixBuiltin, MixDashboard, MixAPI, MixMSE, MixReduce}

// NamedMix is the mix called name over table.
func NamedMix(name, table string) (Mix, error) {
	switch name {
	case MixBuiltin:
		return DefaultMix(table), nil
	case MixDashboard:
		return DashboardMix(table), nil
	case MixAPI:
		return APIMix(table), nil
	case MixMSE:
		return MSEMix(table), nil
	case MixReduce:
		return ReduceMix(table), nil
	}
	return nil, fmt.Errorf("mix %q: want one of %s", name, strings.Join(MixNames, ", "))
}
