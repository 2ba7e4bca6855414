package inject

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/config"
)

// TestInjectedEnvIsWhatTheSidecarReads feeds the env the chart renders to the sidecar's own
// config loader: every variable is one it knows, every value parses to what the values said,
// with no warning (nothing clamped or ignored).
func TestInjectedEnvIsWhatTheSidecarReads(t *testing.T) {
	authFile := filepath.Join(t.TempDir(), "authorization")
	if err := os.WriteFile(authFile, []byte("Basic d2FybXVwOnNlY3JldA=="), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, values string
		want         func(*config.Config)
	}{
		{"defaults", "", func(c *config.Config) {}},
		{"empty probe and resource overrides", "readinessProbe: {}\nlivenessProbe: {}\nresources: {}\n", func(c *config.Config) {}},
		{"tuned", `
auth: {existingSecret: s}
warmup:
  budget: 1m30s
  minIterations: 2500
  maxTables: 7
  tables: [a, b]
  concurrency: 8
  maxProbeRate: 50.5
  probeTimeout: 750ms
  failClosed: true
  rearm: false
  listenPort: 9100
  logFormat: text
  logLevel: debug
  exit: floor
  convergeTolerance: 0.35
  convergeWindows: 5
  jvmMetricsUrl: http://127.0.0.1:8008/metrics
brokerJvm:
  aotCache:
    enabled: true
    volume: {persistentVolumeClaim: {claimName: pinot-broker-aot}}
`, func(c *config.Config) {
			c.BrokerAOTLog = "/var/log/pinot-aot/aot.log"
			c.Exit, c.ConvergeTolerance, c.ConvergeWindows = "floor", 0.35, 5
			c.JVMMetricsURL = "http://127.0.0.1:8008/metrics"
			c.Budget = 90 * time.Second
			c.MinIterations = 2500
			c.MaxTables = 7
			c.Tables, c.TableList = "a,b", []string{"a", "b"}
			c.Concurrency = 8
			c.MaxProbeRate = 50.5
			c.ProbeTimeout = 750 * time.Millisecond
			c.FailClosed, c.Rearm = true, false
			c.ListenAddr = ":9100"
			c.LogFormat, c.LogLevel = "text", "debug"
			c.AuthHeaderFile = authFile
			c.ControllerURL = "" // tables named: no controller looked up
		}},
		{"queries", `warmup: {queries: ["SELECT 1 FROM t", "SELECT COUNT(*) FROM u"]}`, func(c *config.Config) {
			c.Query, c.Queries = "SELECT 1 FROM t;SELECT COUNT(*) FROM u", []string{"SELECT 1 FROM t", "SELECT COUNT(*) FROM u"}
			c.ControllerURL = ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{}
			if tc.values != "" {
				args = append(args, "--values", writeValues(t, tc.values))
			}
			out := mustInject(t, fixture(t, "customized.yaml"), args...)
			env := envOf(containerNamed(brokerStatefulSets(objects(t, out))[0], "containers", sidecar))
			var environ []string
			for k, v := range env {
				if k == "WARMUP_AUTH_HEADER_FILE" {
					v = authFile // the Secret mount exists only in the pod
				}
				environ = append(environ, k+"="+v)
			}
			got, warns, err := config.LoadFrom(environ)
			if err != nil {
				t.Fatalf("the sidecar rejects the env the chart renders: %v\n%s", err, strings.Join(environ, "\n"))
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			want, _, err := config.LoadFrom([]string{
				"WARMUP_BROKER_URL=http://127.0.0.1:8199",
				"WARMUP_CONTROLLER_URL=http://pinot-controller:9000",
			})
			if err != nil {
				t.Fatal(err)
			}
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config from the rendered env\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
