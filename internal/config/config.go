// Package config reads the sidecar's WARMUP_* environment into a checked Config.
// Every error is one line naming the variable, the value (never a secret's) and
// what was expected; the caller exits 2 on it.
package config

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// Prefix of every variable.
const Prefix = "WARMUP"

// Concurrency bounds; values outside are clamped with a warning.
const (
	MinConcurrency = 1
	MaxConcurrency = 64
)

// Exit rules (WARMUP_EXIT): the judge's own names.
const (
	ExitConverged = string(judge.ExitConverged)
	ExitFloor     = string(judge.ExitFloor)
)

// MaxConvergeWindows bounds WARMUP_CONVERGE_WINDOWS: more flat windows than this
// could not fit any budget.
const MaxConvergeWindows = 100

// Config is the sidecar's whole configuration (docs/design.md, Contract). The
// envconfig names carry the WARMUP_ prefix themselves and Process runs with no
// prefix: given one, envconfig falls back to the bare name (QUERY, TABLES) when
// WARMUP_X is unset, and a stray variable would silently configure the sidecar.
type Config struct {
	Enabled        bool          `envconfig:"WARMUP_ENABLED" default:"true"`
	BrokerURL      string        `envconfig:"WARMUP_BROKER_URL" default:"http://127.0.0.1:8099"`
	ControllerURL  string        `envconfig:"WARMUP_CONTROLLER_URL"`
	Budget         time.Duration `envconfig:"WARMUP_BUDGET" default:"15s"`
	MinIterations  int           `envconfig:"WARMUP_MIN_ITERATIONS" default:"300"`
	MaxTables      int           `envconfig:"WARMUP_MAX_TABLES" default:"5"`
	Query          string        `envconfig:"WARMUP_QUERY"`
	Tables         string        `envconfig:"WARMUP_TABLES"`
	Concurrency    int           `envconfig:"WARMUP_CONCURRENCY" default:"4"`
	ProbeTimeout   time.Duration `envconfig:"WARMUP_PROBE_TIMEOUT" default:"5s"`
	FailClosed     bool          `envconfig:"WARMUP_FAIL_CLOSED" default:"false"`
	Rearm          bool          `envconfig:"WARMUP_REARM" default:"true"`
	AuthHeaderFile string        `envconfig:"WARMUP_AUTH_HEADER_FILE"`
	ListenAddr     string        `envconfig:"WARMUP_LISTEN_ADDR" default:":9095"`
	LogFormat      string        `envconfig:"WARMUP_LOG_FORMAT" default:"json"`
	LogLevel       string        `envconfig:"WARMUP_LOG_LEVEL" default:"info"`
	// The exit rule (README "When is the broker warm?").
	Exit              string  `envconfig:"WARMUP_EXIT" default:"converged"`
	ConvergeTolerance float64 `envconfig:"WARMUP_CONVERGE_TOLERANCE" default:"0.2"`
	ConvergeWindows   int     `envconfig:"WARMUP_CONVERGE_WINDOWS" default:"3"`
	JVMMetricsURL     string  `envconfig:"WARMUP_JVM_METRICS_URL"`
	// What the default probe sends (README "What is probed").
	ProbeShapes string `envconfig:"WARMUP_PROBE_SHAPES" default:"schema"`
	MultiStage  string `envconfig:"WARMUP_MULTISTAGE" default:"auto"`
	// MaxProbeRate caps the queries a second of each run, all of them (check_rate.go); 0: no cap.
	MaxProbeRate float64 `envconfig:"WARMUP_MAX_PROBE_RATE" default:"0"`
	// BrokerAOTLog is the broker JVM's -Xlog:aot file (README "JDK 25+: an AOT cache"); empty: not read.
	BrokerAOTLog string `envconfig:"WARMUP_BROKER_AOT_LOG"`
	// The broker container's CPU boost, given back by resizing the sidecar's own pod
	// (README "A CPU boost for the broker's start"; checked in check_cpuboost.go).
	CPUBoostEnabled       bool          `envconfig:"WARMUP_CPU_BOOST_ENABLED" default:"false"`
	CPUBoostContainer     string        `envconfig:"WARMUP_CPU_BOOST_CONTAINER" default:"broker"`
	CPUBoostTargetRequest string        `envconfig:"WARMUP_CPU_BOOST_TARGET_REQUEST"`
	CPUBoostTargetLimit   string        `envconfig:"WARMUP_CPU_BOOST_TARGET_LIMIT"`
	CPUBoostMaxDuration   time.Duration `envconfig:"WARMUP_CPU_BOOST_MAX_DURATION" default:"10m"`
	CPUBoostSettle        time.Duration `envconfig:"WARMUP_CPU_BOOST_SETTLE" default:"60s"`
	// The pod the sidecar runs in (the downward API), and its ServiceAccount's token and CA.
	PodName               string `envconfig:"WARMUP_POD_NAME"`
	PodNamespace          string `envconfig:"WARMUP_POD_NAMESPACE"`
	KubeServiceAccountDir string `envconfig:"WARMUP_KUBE_SERVICE_ACCOUNT_DIR" default:"/var/run/secrets/kubernetes.io/serviceaccount"`

	// Queries is Query split by sqltext.Split: one entry per query, with its SETs.
	Queries []string `ignored:"true"`
	// TableList is Tables split on ',', trimmed, de-duplicated.
	TableList []string `ignored:"true"`
	// ServiceLinks are the WARMUP_* variables ignored as Kubernetes service
	// links (servicelinks.go), sorted: the caller logs them at debug.
	ServiceLinks []string `ignored:"true"`
}

// Load reads the process environment. Warnings are things clamped or ignored,
// and settings that keep every run short of its floor.
func Load() (Config, []string, error) {
	return LoadFrom(os.Environ())
}

// LoadFrom reads the given environment ("K=V" entries) instead of the process's.
func LoadFrom(environ []string) (Config, []string, error) {
	env := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	links, err := unknownVars(env)
	if err != nil {
		return Config{}, nil, err
	}
	var c Config
	if err := process(env, &c); err != nil {
		return Config{}, nil, err
	}
	c.ServiceLinks = links
	return c.check()
}

// Known lists every variable name Config reads, sorted.
func Known() []string {
	var out []string
	out = append(out, fields()...)
	sort.Strings(out)
	return out
}

// unknownVars rejects a WARMUP_* variable Config does not read: a typo such as
// WARMUP_BUDGETS would otherwise silently keep the default. Kubernetes service
// links (a Service named warmup-sidecar in the namespace) are no typos: they
// are returned, sorted, to be logged and ignored.
func unknownVars(env map[string]string) (links []string, err error) {
	known := map[string]bool{}
	for _, k := range Known() {
		known[k] = true
	}
	var bad []string
	for k := range env {
		switch {
		case !strings.HasPrefix(k, Prefix+"_") || known[k]:
		case isServiceLink(k, env):
			links = append(links, k)
		default:
			bad = append(bad, k)
		}
	}
	sort.Strings(links)
	if len(bad) == 0 {
		return links, nil
	}
	sort.Strings(bad)
	return nil, fmt.Errorf("%s: unknown variable: expected one of %s", strings.Join(bad, ", "), strings.Join(Known(), ", "))
}

// process runs envconfig against env by temporarily exposing it through a lookup.
func process(env map[string]string, c *Config) error {
	err := withEnv(env, func() error { return envconfig.Process("", c) })
	var pe *envconfig.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s=%q: expected %s", pe.KeyName, pe.Value, expectation(pe.KeyName, pe.TypeName))
	}
	if err != nil {
		return fmt.Errorf("reading %s_* environment: %w", Prefix, err)
	}
	return nil
}

// expectation is what a variable's value should be: its own words, else its type's.
func expectation(name, typeName string) string {
	if e, ok := expected[name]; ok {
		return e
	}
	switch typeName {
	case "time.Duration": // envconfig names types by reflect.Type.String
		return "a duration such as 15s, 500ms or 1m"
	case "bool":
		return "true or false"
	case "int":
		return "a whole number"
	case "float64":
		return "a number such as 0.2"
	}
	return "a value of type " + typeName
}
