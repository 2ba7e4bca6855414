package config

import (
	"strings"
	"testing"
)

// With the boost on, what the give-back needs is required, each missing piece named.
func TestCPUBoostRequirements(t *testing.T) {
	on := []string{ctl, "WARMUP_CPU_BOOST_ENABLED=true", "WARMUP_POD_NAME=pinot-broker-0", "WARMUP_POD_NAMESPACE=pinot"}
	without := func(name string, extra ...string) []string {
		var out []string
		for _, kv := range append(append([]string{}, on...), extra...) {
			if !strings.HasPrefix(kv, name+"=") {
				out = append(out, kv)
			}
		}
		return out
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{without("", "WARMUP_CPU_BOOST_TARGET_LIMIT=2"), ""},
		{without("", "WARMUP_CPU_BOOST_TARGET_REQUEST=1"), ""},
		{without(""), "WARMUP_CPU_BOOST_TARGET_LIMIT is empty: expected the broker container's CPU limit (or WARMUP_CPU_BOOST_TARGET_REQUEST"},
		{without("WARMUP_POD_NAME", "WARMUP_CPU_BOOST_TARGET_LIMIT=2"), "WARMUP_POD_NAME is empty: expected the pod's name, from the downward API (fieldRef metadata.name)"},
		{without("WARMUP_POD_NAMESPACE", "WARMUP_CPU_BOOST_TARGET_LIMIT=2"), "WARMUP_POD_NAMESPACE is empty"},
		{without("", "WARMUP_CPU_BOOST_TARGET_REQUEST=3", "WARMUP_CPU_BOOST_TARGET_LIMIT=2"), `WARMUP_CPU_BOOST_TARGET_REQUEST="3": expected at most WARMUP_CPU_BOOST_TARGET_LIMIT ("2")`},
	} {
		_, _, err := LoadFrom(c.env)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.env, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want %q", c.env, err, c.want)
		}
	}
	// Off, the same pieces may be missing: the boost is not used.
	if _, _, err := LoadFrom([]string{ctl, "WARMUP_CPU_BOOST_TARGET_LIMIT=2"}); err != nil {
		t.Errorf("boost off: %v", err)
	}
}

// A ServiceAccount token set as the directory by mistake is not echoed.
func TestServiceAccountDirErrorHidesAToken(t *testing.T) {
	jwt := "eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6cGlub3QifQ.c2lnbmF0dXJl"
	_, _, err := LoadFrom([]string{ctl, "WARMUP_KUBE_SERVICE_ACCOUNT_DIR=" + jwt})
	if err == nil || strings.Contains(err.Error(), jwt[:12]) || !strings.Contains(err.Error(), "not shown") {
		t.Errorf("error %v: want the value hidden", err)
	}
}
