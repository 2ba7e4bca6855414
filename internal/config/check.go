package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// check validates ranges and cross-field rules, and derives the split lists.
func (c Config) check() (Config, []string, error) {
	var warns []string
	if c.Budget <= 0 {
		return c, nil, fmt.Errorf("WARMUP_BUDGET=%q: expected a positive duration such as 15s", c.Budget)
	}
	if c.MinIterations < 0 {
		return c, nil, fmt.Errorf("WARMUP_MIN_ITERATIONS=%d: expected 0 or more successful probes", c.MinIterations)
	}
	if c.MaxTables < 1 {
		return c, nil, fmt.Errorf("WARMUP_MAX_TABLES=%d: expected 1 or more", c.MaxTables)
	}
	if c.ProbeTimeout <= 0 {
		return c, nil, fmt.Errorf("WARMUP_PROBE_TIMEOUT=%q: expected a positive duration such as 5s", c.ProbeTimeout)
	}
	if c.Concurrency < MinConcurrency || c.Concurrency > MaxConcurrency {
		clamped := min(max(c.Concurrency, MinConcurrency), MaxConcurrency)
		warns = append(warns, fmt.Sprintf("WARMUP_CONCURRENCY=%d is outside [%d, %d]: using %d", c.Concurrency, MinConcurrency, MaxConcurrency, clamped))
		c.Concurrency = clamped
	}
	broker, err := checkBrokerURL(c.BrokerURL)
	if err != nil {
		return c, nil, err
	}
	c.BrokerURL = broker
	if err := checkURL("WARMUP_CONTROLLER_URL", c.ControllerURL, false, pinotURL); err != nil {
		return c, nil, err
	}
	if err := c.checkProbes(); err != nil {
		return c, nil, err
	}
	if err := c.checkExit(); err != nil {
		return c, nil, err
	}
	if warn, err := c.checkProbeRate(); err != nil {
		return c, nil, err
	} else if warn != "" {
		warns = append(warns, warn)
	}
	if c.BrokerAOTLog != "" && !filepath.IsAbs(c.BrokerAOTLog) {
		return c, nil, fmt.Errorf("WARMUP_BROKER_AOT_LOG=%q: expected an absolute path to the broker JVM's AOT log, such as /var/log/pinot-aot/aot.log", c.BrokerAOTLog)
	}
	if err := c.checkCPUBoost(); err != nil {
		return c, nil, err
	}
	if _, port, err := net.SplitHostPort(c.ListenAddr); err != nil || !validPort(port) {
		return c, nil, fmt.Errorf("WARMUP_LISTEN_ADDR=%q: expected host:port or :port with a port from 0 to 65535, such as :9095", c.ListenAddr)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return c, nil, fmt.Errorf("WARMUP_LOG_FORMAT=%q: expected json or text", c.LogFormat)
	}
	if _, err := ParseLevel(c.LogLevel); err != nil {
		return c, nil, err
	}
	if err := checkAuthHeaderFile(c.AuthHeaderFile); err != nil {
		return c, nil, err
	}
	queries, err := sqltext.Split(c.Query)
	if err != nil {
		return c, nil, fmt.Errorf("WARMUP_QUERY=%q: %w", c.Query, err)
	}
	c.Queries = queries
	c.TableList = SplitTables(c.Tables)
	if strings.TrimSpace(c.Tables) != "" && len(c.TableList) == 0 {
		return c, nil, fmt.Errorf("WARMUP_TABLES=%q: expected comma-separated table names, such as orders,clicks", c.Tables)
	}
	for _, t := range c.TableList {
		if !validTableName(t) {
			return c, nil, fmt.Errorf("WARMUP_TABLES=%q: table %q: expected letters, digits, '_', '-' or '.' only", c.Tables, t)
		}
	}
	if c.Query != "" && len(c.Queries) == 0 {
		return c, nil, fmt.Errorf("WARMUP_QUERY=%q: expected one or more SQL queries separated by ';'", c.Query)
	}
	if c.Query != "" && c.Tables != "" {
		warns = append(warns, "WARMUP_TABLES is ignored because WARMUP_QUERY is set")
		c.TableList = nil
	}
	if c.Enabled && len(c.Queries) == 0 && len(c.TableList) == 0 && c.ControllerURL == "" {
		return c, nil, fmt.Errorf("WARMUP_CONTROLLER_URL is empty: expected the controller URL (such as http://pinot-controller:9000) unless WARMUP_QUERY or WARMUP_TABLES is set")
	}
	return c, warns, nil
}

// urlKind is what URL errors say is expected.
type urlKind struct{ shape, example, credentials string }

var (
	pinotURL = urlKind{"an http:// or https:// URL", "http://127.0.0.1:8099", ", with credentials in WARMUP_AUTH_HEADER_FILE"}
	// The broker's base URL: every call adds its own path (/health, /query/sql).
	brokerURL = urlKind{brokerShape, "http://127.0.0.1:8099", ", with credentials in WARMUP_AUTH_HEADER_FILE"}
	// The JVM metrics endpoint gets no credentials at all.
	jvmMetricsURL = urlKind{"an http:// or https:// URL", "http://127.0.0.1:8008/metrics", ""}
)

const brokerShape = "scheme://host:port with no path, query or fragment"

// checkBrokerURL accepts scheme://host[:port] and drops one trailing /: every
// call adds its own path, so a path of the URL's own would make each of them,
// /health too, answer 404 for as long as the pod lives.
func checkBrokerURL(raw string) (string, error) {
	if err := checkURL("WARMUP_BROKER_URL", raw, true, brokerURL); err != nil {
		return "", err
	}
	// checkURL parsed it; user info (the only other place for ? or #) is refused.
	u, _ := url.Parse(raw)
	if (u.Path != "" && u.Path != "/") || strings.ContainsAny(raw, "?#") {
		return "", fmt.Errorf("WARMUP_BROKER_URL=%q: expected %s, such as %s: the sidecar adds the paths (/health, /query/sql) itself",
			raw, brokerShape, brokerURL.example)
	}
	return strings.TrimSuffix(raw, "/"), nil
}

// checkExit validates the exit rule and its knobs.
func (c Config) checkExit() error {
	if c.Exit != ExitConverged && c.Exit != ExitFloor {
		return fmt.Errorf("WARMUP_EXIT=%q: expected converged or floor", c.Exit)
	}
	// Written so that NaN fails too.
	if !(c.ConvergeTolerance > 0 && c.ConvergeTolerance <= 1) {
		return fmt.Errorf("WARMUP_CONVERGE_TOLERANCE=%g: expected a fraction above 0 and at most 1, such as 0.2 (±20%%)", c.ConvergeTolerance)
	}
	if c.ConvergeWindows < 1 || c.ConvergeWindows > MaxConvergeWindows {
		return fmt.Errorf("WARMUP_CONVERGE_WINDOWS=%d: expected 1 to %d flat windows in a row", c.ConvergeWindows, MaxConvergeWindows)
	}
	return checkURL("WARMUP_JVM_METRICS_URL", c.JVMMetricsURL, false, jvmMetricsURL)
}

func checkURL(name, raw string, required bool, kind urlKind) error {
	if raw == "" && !required {
		return nil
	}
	// Credentials never belong in a URL here: it is logged at startup. Say so
	// without echoing the value.
	if strings.Contains(raw, "@") {
		return fmt.Errorf("%s: a URL with user info (user:password@) is not accepted: expected a plain URL such as %s%s", name, kind.example, kind.credentials)
	}
	// A copy-pasted value often brings a space or a newline along.
	if strings.TrimSpace(raw) != raw {
		return fmt.Errorf("%s=%q: white space around the value: expected %s and nothing around it, such as %s", name, raw, kind.shape, kind.example)
	}
	u, err := url.Parse(raw)
	// Hostname, not Host: "http://:8099" has a Host (":8099") but no host name.
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return fmt.Errorf("%s=%q: expected an http:// or https:// URL with a host, such as %s", name, raw, kind.example)
	}
	return nil
}

// ParseLevel maps WARMUP_LOG_LEVEL to a slog level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("WARMUP_LOG_LEVEL=%q: expected debug, info, warn or error", s)
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 0 && n <= 65535
}

// validTableName accepts Pinot table names, optionally typed (_OFFLINE) or with a
// database prefix (db.table): the probe quotes the name, so a quote or a space in
// it would make SQL the broker cannot parse.
func validTableName(t string) bool {
	for _, r := range t {
		ok := r == '_' || r == '-' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return t != ""
}

// checkProbes validates what the default probe sends.
func (c Config) checkProbes() error {
	if c.ProbeShapes != "schema" && c.ProbeShapes != "limit1" {
		return fmt.Errorf("WARMUP_PROBE_SHAPES=%q: expected schema or limit1", c.ProbeShapes)
	}
	if c.MultiStage != "auto" && c.MultiStage != "on" && c.MultiStage != "off" {
		return fmt.Errorf("WARMUP_MULTISTAGE=%q: expected auto, on or off", c.MultiStage)
	}
	return nil
}
