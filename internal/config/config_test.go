package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ctl is the smallest environment that loads: every default plus a controller.
const ctl = "WARMUP_CONTROLLER_URL=http://pinot-controller:9000"

func load(t *testing.T, environ ...string) (Config, []string, error) {
	t.Helper()
	return LoadFrom(environ)
}

func mustLoad(t *testing.T, environ ...string) (Config, []string) {
	t.Helper()
	c, warns, err := LoadFrom(environ)
	if err != nil {
		t.Fatalf("LoadFrom(%q): %v", environ, err)
	}
	return c, warns
}

// The defaults are docs/design.md's table, variable by variable.
func TestDefaultsMatchDesign(t *testing.T) {
	c, warns := mustLoad(t, ctl, "PATH=/usr/bin", "HOME=/home/nonroot")
	want := Config{
		Enabled:       true,
		BrokerURL:     "http://127.0.0.1:8099",
		ControllerURL: "http://pinot-controller:9000",
		Budget:        15 * time.Second,
		MinIterations: 300,
		MaxTables:     5,
		Concurrency:   4,
		ProbeTimeout:  5 * time.Second,
		FailClosed:    false,
		Rearm:         true,
		ListenAddr:    ":9095",
		LogFormat:     "json",
		LogLevel:      "info",
		Exit:          "converged",

		ConvergeTolerance: 0.2,
		ConvergeWindows:   3,
		ProbeShapes:       "schema",
		MultiStage:        "auto",

		CPUBoostContainer:     "broker",
		CPUBoostMaxDuration:   10 * time.Minute,
		CPUBoostSettle:        time.Minute,
		KubeServiceAccountDir: "/var/run/secrets/kubernetes.io/serviceaccount",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
	if len(warns) != 0 {
		t.Errorf("warnings on defaults: %q", warns)
	}
}

func TestKnownListsEveryDesignVariable(t *testing.T) {
	want := []string{
		"WARMUP_AUTH_HEADER_FILE", "WARMUP_BROKER_AOT_LOG", "WARMUP_BROKER_URL", "WARMUP_BUDGET", "WARMUP_CONCURRENCY",
		"WARMUP_CONTROLLER_URL", "WARMUP_CONVERGE_TOLERANCE", "WARMUP_CONVERGE_WINDOWS",
		"WARMUP_CPU_BOOST_CONTAINER", "WARMUP_CPU_BOOST_ENABLED", "WARMUP_CPU_BOOST_MAX_DURATION", "WARMUP_CPU_BOOST_SETTLE",
		"WARMUP_CPU_BOOST_TARGET_LIMIT", "WARMUP_CPU_BOOST_TARGET_REQUEST", "WARMUP_ENABLED",
		"WARMUP_EXIT", "WARMUP_FAIL_CLOSED", "WARMUP_JVM_METRICS_URL", "WARMUP_KUBE_SERVICE_ACCOUNT_DIR", "WARMUP_LISTEN_ADDR",
		"WARMUP_LOG_FORMAT", "WARMUP_LOG_LEVEL", "WARMUP_MAX_PROBE_RATE", "WARMUP_MAX_TABLES", "WARMUP_MIN_ITERATIONS",
		"WARMUP_MULTISTAGE", "WARMUP_POD_NAME", "WARMUP_POD_NAMESPACE", "WARMUP_PROBE_SHAPES", "WARMUP_PROBE_TIMEOUT", "WARMUP_QUERY", "WARMUP_REARM", "WARMUP_TABLES",
	}
	if got := Known(); !reflect.DeepEqual(got, want) {
		t.Errorf("Known() = %q, want %q", got, want)
	}
}

func TestEveryValueIsRead(t *testing.T) {
	auth := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(auth, []byte("Basic YWRtaW46dmVyeXNlY3JldA==\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, warns := mustLoad(t,
		"WARMUP_ENABLED=false",
		"WARMUP_BROKER_URL=https://broker.example:8443/",
		"WARMUP_CONTROLLER_URL=http://ctl:9000",
		"WARMUP_BUDGET=1m30s",
		"WARMUP_MIN_ITERATIONS=0",
		"WARMUP_MAX_TABLES=1",
		"WARMUP_TABLES=a, b",
		"WARMUP_CONCURRENCY=64",
		"WARMUP_MAX_PROBE_RATE=12.5",
		"WARMUP_PROBE_TIMEOUT=750ms",
		"WARMUP_FAIL_CLOSED=true",
		"WARMUP_REARM=false",
		"WARMUP_AUTH_HEADER_FILE="+auth,
		"WARMUP_LISTEN_ADDR=127.0.0.1:19095",
		"WARMUP_LOG_FORMAT=text",
		"WARMUP_LOG_LEVEL=DEBUG",
		"WARMUP_EXIT=floor",
		"WARMUP_CONVERGE_TOLERANCE=0.35",
		"WARMUP_CONVERGE_WINDOWS=5",
		"WARMUP_JVM_METRICS_URL=http://127.0.0.1:8008/metrics?name[]=jvm_compilation_time_seconds_total",
		"WARMUP_PROBE_SHAPES=limit1",
		"WARMUP_MULTISTAGE=off",
		"WARMUP_BROKER_AOT_LOG=/var/log/pinot-aot/aot.log",
		"WARMUP_CPU_BOOST_ENABLED=true",
		"WARMUP_CPU_BOOST_CONTAINER=pinot-broker",
		"WARMUP_CPU_BOOST_TARGET_REQUEST=500m",
		"WARMUP_CPU_BOOST_TARGET_LIMIT=1.5",
		"WARMUP_CPU_BOOST_MAX_DURATION=7m",
		"WARMUP_CPU_BOOST_SETTLE=0s",
		"WARMUP_POD_NAME=pinot-broker-0",
		"WARMUP_POD_NAMESPACE=pinot",
		"WARMUP_KUBE_SERVICE_ACCOUNT_DIR=/run/sa",
	)
	// The broker URL's one trailing / is dropped.
	want := Config{
		Enabled: false, BrokerURL: "https://broker.example:8443", ControllerURL: "http://ctl:9000",
		Budget: 90 * time.Second, MinIterations: 0, MaxTables: 1, Tables: "a, b", Concurrency: 64, MaxProbeRate: 12.5,
		ProbeTimeout: 750 * time.Millisecond, FailClosed: true, Rearm: false, AuthHeaderFile: auth,
		ListenAddr: "127.0.0.1:19095", LogFormat: "text", LogLevel: "DEBUG", TableList: []string{"a", "b"},
		Exit: "floor", ConvergeTolerance: 0.35, ConvergeWindows: 5,
		JVMMetricsURL: "http://127.0.0.1:8008/metrics?name[]=jvm_compilation_time_seconds_total",
		ProbeShapes:   "limit1", MultiStage: "off", BrokerAOTLog: "/var/log/pinot-aot/aot.log",
		CPUBoostEnabled: true, CPUBoostContainer: "pinot-broker", CPUBoostTargetRequest: "500m", CPUBoostTargetLimit: "1.5",
		CPUBoostMaxDuration: 7 * time.Minute, CPUBoostSettle: 0, PodName: "pinot-broker-0", PodNamespace: "pinot",
		KubeServiceAccountDir: "/run/sa",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("\n got %+v\nwant %+v", c, want)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
}

// Only the given environment counts: a bare QUERY, TABLES or BUDGET in the
// process (envconfig's fallback for an unset prefixed name) must not leak in.
func TestLoadFromIgnoresProcessEnvironment(t *testing.T) {
	t.Setenv("WARMUP_BUDGET", "not-a-duration")
	t.Setenv("BUDGET", "not-a-duration")
	t.Setenv("QUERY", "SELECT 1")
	t.Setenv("TABLES", "leaked")
	t.Setenv("ENABLED", "false")
	t.Setenv("CONCURRENCY", "9")
	c, _ := mustLoad(t, ctl)
	if c.Budget != 15*time.Second || c.Query != "" || c.Tables != "" || !c.Enabled || c.Concurrency != 4 {
		t.Errorf("process environment leaked into LoadFrom: %+v", c)
	}
	if got := os.Getenv("WARMUP_BUDGET"); got != "not-a-duration" {
		t.Errorf("WARMUP_BUDGET not restored after LoadFrom: %q", got)
	}
}

func TestLoadReadsProcessEnvironment(t *testing.T) {
	t.Setenv("WARMUP_CONTROLLER_URL", "http://ctl:9000")
	t.Setenv("WARMUP_MAX_TABLES", "3")
	c, _, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxTables != 3 || c.ControllerURL != "http://ctl:9000" {
		t.Errorf("Load: %+v", c)
	}
}

// Exact one-line messages for the common mistakes.
func TestErrorMessages(t *testing.T) {
	cases := []struct {
		env  string
		want string
	}{
		{"WARMUP_BUDGET=15", `WARMUP_BUDGET="15": expected a duration such as 15s, 500ms or 1m`},
		{"WARMUP_BUDGET=0s", `WARMUP_BUDGET="0s": expected a positive duration such as 15s`},
		{"WARMUP_BUDGET=-1s", `WARMUP_BUDGET="-1s": expected a positive duration such as 15s`},
		{"WARMUP_PROBE_TIMEOUT=0s", `WARMUP_PROBE_TIMEOUT="0s": expected a positive duration such as 5s`},
		{"WARMUP_MIN_ITERATIONS=-1", `WARMUP_MIN_ITERATIONS=-1: expected 0 or more successful probes`},
		{"WARMUP_MIN_ITERATIONS=lots", `WARMUP_MIN_ITERATIONS="lots": expected a whole number`},
		{"WARMUP_MAX_TABLES=0", `WARMUP_MAX_TABLES=0: expected 1 or more`},
		{"WARMUP_ENABLED=yes", `WARMUP_ENABLED="yes": expected true or false`},
		{"WARMUP_BROKER_URL=127.0.0.1:8099", `WARMUP_BROKER_URL="127.0.0.1:8099": expected an http:// or https:// URL with a host, such as http://127.0.0.1:8099`},
		{"WARMUP_CONTROLLER_URL=http://", `WARMUP_CONTROLLER_URL="http://": expected an http:// or https:// URL with a host, such as http://127.0.0.1:8099`},
		{"WARMUP_LISTEN_ADDR=9095", `WARMUP_LISTEN_ADDR="9095": expected host:port or :port with a port from 0 to 65535, such as :9095`},
		{"WARMUP_LOG_LEVEL=verbose", `WARMUP_LOG_LEVEL="verbose": expected debug, info, warn or error`},
		{"WARMUP_LOG_FORMAT=logfmt", `WARMUP_LOG_FORMAT="logfmt": expected json or text`},
		{"WARMUP_QUERY=SELECT 'x", `WARMUP_QUERY="SELECT 'x": unterminated quote: expected every ' to be closed`},
		{"WARMUP_QUERY= ; ;", `WARMUP_QUERY=" ; ;": expected one or more SQL queries separated by ';'`},
		{"WARMUP_EXIT=fast", `WARMUP_EXIT="fast": expected converged or floor`},
		{"WARMUP_PROBE_SHAPES=all", `WARMUP_PROBE_SHAPES="all": expected schema or limit1`},
		{"WARMUP_MULTISTAGE=true", `WARMUP_MULTISTAGE="true": expected auto, on or off`},
		{"WARMUP_EXIT=", `WARMUP_EXIT="": expected converged or floor`},
		{"WARMUP_CONVERGE_TOLERANCE=20%", `WARMUP_CONVERGE_TOLERANCE="20%": expected a number such as 0.2`},
		{"WARMUP_CONVERGE_TOLERANCE=0", `WARMUP_CONVERGE_TOLERANCE=0: expected a fraction above 0 and at most 1, such as 0.2 (±20%)`},
		{"WARMUP_CONVERGE_TOLERANCE=1.5", `WARMUP_CONVERGE_TOLERANCE=1.5: expected a fraction above 0 and at most 1, such as 0.2 (±20%)`},
		{"WARMUP_CONVERGE_TOLERANCE=NaN", `WARMUP_CONVERGE_TOLERANCE=NaN: expected a fraction above 0 and at most 1, such as 0.2 (±20%)`},
		{"WARMUP_CONVERGE_WINDOWS=0", `WARMUP_CONVERGE_WINDOWS=0: expected 1 to 100 flat windows in a row`},
		{"WARMUP_CONVERGE_WINDOWS=101", `WARMUP_CONVERGE_WINDOWS=101: expected 1 to 100 flat windows in a row`},
		{"WARMUP_JVM_METRICS_URL=127.0.0.1:8008", `WARMUP_JVM_METRICS_URL="127.0.0.1:8008": expected an http:// or https:// URL with a host, such as http://127.0.0.1:8008/metrics`},
		{"WARMUP_JVM_METRICS_URL=http://u:p@127.0.0.1:8008/metrics", `WARMUP_JVM_METRICS_URL: a URL with user info (user:password@) is not accepted: expected a plain URL such as http://127.0.0.1:8008/metrics`},
		{"WARMUP_BROKER_AOT_LOG=aot.log", `WARMUP_BROKER_AOT_LOG="aot.log": expected an absolute path to the broker JVM's AOT log, such as /var/log/pinot-aot/aot.log`},
		{"WARMUP_MAX_PROBE_RATE=fast", `WARMUP_MAX_PROBE_RATE="fast": expected probes per second, 0 (no cap) or more, such as 20`},
		{"WARMUP_MAX_PROBE_RATE=20/s", `WARMUP_MAX_PROBE_RATE="20/s": expected probes per second, 0 (no cap) or more, such as 20`},
		{"WARMUP_MAX_PROBE_RATE=-1", `WARMUP_MAX_PROBE_RATE=-1: expected probes per second, 0 (no cap) or more, such as 20`},
		{"WARMUP_MAX_PROBE_RATE=NaN", `WARMUP_MAX_PROBE_RATE=NaN: expected probes per second, 0 (no cap) or more, such as 20`},
		{"WARMUP_MAX_PROBE_RATE=Inf", `WARMUP_MAX_PROBE_RATE=+Inf: expected probes per second, 0 (no cap) or more, such as 20`},
		// Fail-closed with a floor the cap cannot reach in the budget: no run is ever warm.
		{"WARMUP_MAX_PROBE_RATE=5 + WARMUP_FAIL_CLOSED=true", `WARMUP_MAX_PROBE_RATE=5: WARMUP_MIN_ITERATIONS=300 takes 60 s at that rate, more than WARMUP_BUDGET=15s, ` +
			`and WARMUP_FAIL_CLOSED=true keeps the gate shut until a run is warm: expected at least 20 probes per second (or a lower floor, a longer budget)`},
	}
	for _, tc := range cases {
		t.Run(tc.env, func(t *testing.T) {
			_, _, err := load(t, append([]string{ctl}, strings.Split(tc.env, " + ")...)...)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), tc.want)
			}
		})
	}
}

// Every variable with a wrong value fails with a one-line error naming it.
func TestEveryVariableRejectsAWrongValue(t *testing.T) {
	cases := []struct {
		name  string
		value string
	}{
		{"WARMUP_ENABLED", "maybe"},
		{"WARMUP_ENABLED", ""},
		{"WARMUP_BROKER_URL", "ftp://broker:8099"},
		{"WARMUP_BROKER_URL", "broker:8099"},
		{"WARMUP_BROKER_URL", "http://:8099"},
		{"WARMUP_BROKER_URL", ""},
		{"WARMUP_BROKER_URL", "http://broker:port"},
		{"WARMUP_CONTROLLER_URL", "pinot-controller"},
		{"WARMUP_CONTROLLER_URL", "https:///tables"},
		{"WARMUP_BUDGET", "fifteen"},
		{"WARMUP_BUDGET", "0"},
		{"WARMUP_BUDGET", "-15s"},
		{"WARMUP_MIN_ITERATIONS", "1e3"},
		{"WARMUP_MIN_ITERATIONS", "-5"},
		{"WARMUP_MIN_ITERATIONS", "99999999999999999999"},
		{"WARMUP_MAX_TABLES", "0"},
		{"WARMUP_MAX_TABLES", "-1"},
		{"WARMUP_MAX_TABLES", "five"},
		{"WARMUP_QUERY", `SELECT "unterminated`},
		{"WARMUP_QUERY", ";;"},
		{"WARMUP_CONCURRENCY", "4.5"},
		{"WARMUP_PROBE_TIMEOUT", "5"},
		{"WARMUP_PROBE_TIMEOUT", "-1ms"},
		{"WARMUP_FAIL_CLOSED", "sometimes"},
		{"WARMUP_REARM", "2"},
		{"WARMUP_AUTH_HEADER_FILE", "/nonexistent/auth"},
		{"WARMUP_LISTEN_ADDR", "localhost"},
		{"WARMUP_LOG_FORMAT", "JSON5"},
		{"WARMUP_LOG_LEVEL", "trace"},
		{"WARMUP_EXIT", "latency"},
		{"WARMUP_PROBE_SHAPES", "LIMIT 1"},
		{"WARMUP_MULTISTAGE", "yes"},
		{"WARMUP_CONVERGE_TOLERANCE", "-0.1"},
		{"WARMUP_CONVERGE_TOLERANCE", "lots"},
		{"WARMUP_CONVERGE_WINDOWS", "-2"},
		{"WARMUP_CONVERGE_WINDOWS", "three"},
		{"WARMUP_JVM_METRICS_URL", "ftp://broker:8008/metrics"},
		{"WARMUP_BROKER_AOT_LOG", "logs/aot.log"},
		{"WARMUP_MAX_PROBE_RATE", "-0.5"},
		{"WARMUP_MAX_PROBE_RATE", "ten"},
		{"WARMUP_CPU_BOOST_ENABLED", "on"},
		{"WARMUP_CPU_BOOST_CONTAINER", "Broker"},
		{"WARMUP_CPU_BOOST_CONTAINER", ""},
		{"WARMUP_CPU_BOOST_TARGET_REQUEST", "1Gi"},
		{"WARMUP_CPU_BOOST_TARGET_REQUEST", "0"},
		{"WARMUP_CPU_BOOST_TARGET_LIMIT", "two"},
		{"WARMUP_CPU_BOOST_TARGET_LIMIT", "-1"},
		{"WARMUP_CPU_BOOST_MAX_DURATION", "0s"},
		{"WARMUP_CPU_BOOST_MAX_DURATION", "10"},
		{"WARMUP_CPU_BOOST_SETTLE", "-1s"},
		{"WARMUP_POD_NAME", "Pinot_Broker_0"},
		{"WARMUP_POD_NAMESPACE", "pinot.ns"},
		{"WARMUP_KUBE_SERVICE_ACCOUNT_DIR", "./serviceaccount"},
	}
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, _, err := load(t, ctl, tc.name+"="+tc.value)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tc.name) {
				t.Errorf("error %q does not start with the variable %s", msg, tc.name)
			}
			if tc.value != "" && !strings.Contains(msg, strconv.Quote(tc.value)) && !strings.Contains(msg, tc.value) {
				t.Errorf("error %q does not name the value %q", msg, tc.value)
			}
			if !strings.Contains(msg, "expected") {
				t.Errorf("error %q does not say what was expected", msg)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error is more than one line: %q", msg)
			}
		})
	}
	// Every variable of Known has at least one case above.
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.name] = true
	}
	for _, k := range Known() {
		if k == "WARMUP_TABLES" { // any text is a table list
			continue
		}
		if !covered[k] {
			t.Errorf("%s has no wrong-value case", k)
		}
	}
}

func TestUnknownVariablesAreRejected(t *testing.T) {
	cases := []struct {
		name    string
		environ []string
		names   []string
	}{
		{"a typo", []string{ctl, "WARMUP_BUDGETS=30s"}, []string{"WARMUP_BUDGETS"}},
		{"several, sorted", []string{ctl, "WARMUP_ZZZ=1", "WARMUP_CONCURENCY=4"}, []string{"WARMUP_CONCURENCY, WARMUP_ZZZ"}},
		{"lower case tail", []string{ctl, "WARMUP_budget=30s"}, []string{"WARMUP_budget"}},
		{"empty value still counts", []string{ctl, "WARMUP_TABLE="}, []string{"WARMUP_TABLE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := LoadFrom(tc.environ)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, n := range tc.names {
				if !strings.HasPrefix(msg, n+": unknown variable") {
					t.Errorf("error %q does not start with %q", msg, n+": unknown variable")
				}
			}
			if !strings.Contains(msg, "WARMUP_BUDGET,") {
				t.Errorf("error %q does not list the known variables", msg)
			}
		})
	}
	// Variables without the prefix, or the bare prefix, are none of its business.
	if _, _, err := LoadFrom([]string{ctl, "WARMUPX=1", "WARMUP=1", "MY_WARMUP_BUDGET=x"}); err != nil {
		t.Errorf("non-WARMUP_ variables rejected: %v", err)
	}
}

func TestConcurrencyIsClampedWithAWarning(t *testing.T) {
	cases := []struct {
		value string
		want  int
		warn  string
	}{
		{"0", 1, "WARMUP_CONCURRENCY=0 is outside [1, 64]: using 1"},
		{"-3", 1, "WARMUP_CONCURRENCY=-3 is outside [1, 64]: using 1"},
		{"100", 64, "WARMUP_CONCURRENCY=100 is outside [1, 64]: using 64"},
		{"1", 1, ""},
		{"64", 64, ""},
		{"8", 8, ""},
	}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			c, warns := mustLoad(t, ctl, "WARMUP_CONCURRENCY="+tc.value)
			if c.Concurrency != tc.want {
				t.Errorf("Concurrency = %d, want %d", c.Concurrency, tc.want)
			}
			switch {
			case tc.warn == "" && len(warns) != 0:
				t.Errorf("unexpected warnings %q", warns)
			case tc.warn != "" && !reflect.DeepEqual(warns, []string{tc.warn}):
				t.Errorf("warnings = %q, want [%q]", warns, tc.warn)
			}
		})
	}
}

func TestQueriesAndTables(t *testing.T) {
	cases := []struct {
		name    string
		environ []string
		queries []string
		tables  []string
		warns   []string
	}{
		{
			name:    "queries split on ';', blanks dropped",
			environ: []string{"WARMUP_QUERY= SELECT 1 ;; SELECT count(*) FROM a ;\n"},
			queries: []string{"SELECT 1", "SELECT count(*) FROM a"},
		},
		{
			name:    "a ';' inside a quoted literal is kept",
			environ: []string{`WARMUP_QUERY=SELECT * FROM a WHERE x = 'p;q'; SELECT 2`},
			queries: []string{`SELECT * FROM a WHERE x = 'p;q'`, "SELECT 2"},
		},
		{
			name:    "SET statements stay with the query after them",
			environ: []string{"WARMUP_QUERY=SET useMultistageEngine=true; SET a = 'x;y'; SELECT * FROM a JOIN b ON a.k = b.k; SELECT 2"},
			queries: []string{"SET useMultistageEngine=true; SET a = 'x;y'; SELECT * FROM a JOIN b ON a.k = b.k", "SELECT 2"},
		},
		{
			name:    "a ';' in a comment is not a separator",
			environ: []string{"WARMUP_QUERY=SELECT 1 -- first; cheap\n;\nSELECT 2 /* second; dearer */"},
			queries: []string{"SELECT 1 -- first; cheap", "SELECT 2 /* second; dearer */"},
		},
		{
			name:    "tables split, trimmed, de-duplicated in order",
			environ: []string{"WARMUP_TABLES= orders,clicks , ,orders,events,"},
			tables:  []string{"orders", "clicks", "events"},
		},
		{
			name:    "WARMUP_TABLES is ignored with a warning when WARMUP_QUERY is set",
			environ: []string{"WARMUP_QUERY=SELECT 1", "WARMUP_TABLES=orders"},
			queries: []string{"SELECT 1"},
			warns:   []string{"WARMUP_TABLES is ignored because WARMUP_QUERY is set"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, warns := mustLoad(t, tc.environ...)
			if !reflect.DeepEqual(c.Queries, tc.queries) {
				t.Errorf("Queries = %q, want %q", c.Queries, tc.queries)
			}
			if !reflect.DeepEqual(c.TableList, tc.tables) {
				t.Errorf("TableList = %q, want %q", c.TableList, tc.tables)
			}
			if !reflect.DeepEqual(warns, tc.warns) {
				t.Errorf("warnings = %q, want %q", warns, tc.warns)
			}
		})
	}
}

// SET statements with no query after them cannot be sent: Pinot needs a query in
// the same request.
func TestQueryEndingInSETIsAnError(t *testing.T) {
	for env, want := range map[string]string{
		"WARMUP_QUERY=SET useMultistageEngine=true": `WARMUP_QUERY="SET useMultistageEngine=true": "SET useMultistageEngine=true" has no query after it: expected each SET statement to come before the query it applies to`,
		"WARMUP_QUERY=SELECT 1; SET a = 'x;y';":     `WARMUP_QUERY="SELECT 1; SET a = 'x;y';": "SET a = 'x;y';" has no query after it: expected each SET statement to come before the query it applies to`,
	} {
		_, _, err := LoadFrom([]string{ctl, env})
		if err == nil || err.Error() != want {
			t.Errorf("%s: err\n got %v\nwant %s", env, err, want)
		}
	}
}

func TestControllerURLRequirement(t *testing.T) {
	const want = "WARMUP_CONTROLLER_URL is empty: expected the controller URL (such as http://pinot-controller:9000) unless WARMUP_QUERY or WARMUP_TABLES is set"
	cases := []struct {
		name    string
		environ []string
		wantErr bool
	}{
		{"required by default", nil, true},
		{"not required with WARMUP_QUERY", []string{"WARMUP_QUERY=SELECT 1"}, false},
		{"not required with WARMUP_TABLES", []string{"WARMUP_TABLES=orders"}, false},
		{"not required when disabled", []string{"WARMUP_ENABLED=false"}, false},
		{"given", []string{ctl}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := LoadFrom(tc.environ)
			switch {
			case tc.wantErr && err == nil:
				t.Fatal("no error")
			case tc.wantErr && err.Error() != want:
				t.Errorf("error\n got %q\nwant %q", err, want)
			case !tc.wantErr && err != nil:
				t.Errorf("error: %v", err)
			}
		})
	}
}

func TestAuthHeaderFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "auth")
	if err := os.WriteFile(good, []byte("Basic dXNlcjpwYXNz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		path string
		want string // "" for no error
	}{
		{"a readable file", good, ""},
		{"missing", filepath.Join(dir, "nope"), `WARMUP_AUTH_HEADER_FILE="` + filepath.Join(dir, "nope") + `": expected a readable file holding the Authorization header value (no such file or directory)`},
		{"a directory", dir, `WARMUP_AUTH_HEADER_FILE="` + dir + `": expected a readable file holding the Authorization header value (is a directory)`},
		{"empty", empty, `WARMUP_AUTH_HEADER_FILE="` + empty + `": the file is empty: expected it to hold the Authorization header value, such as "Basic <base64>"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := LoadFrom([]string{ctl, "WARMUP_AUTH_HEADER_FILE=" + tc.path})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.AuthHeaderFile != tc.path {
					t.Errorf("AuthHeaderFile = %q", c.AuthHeaderFile)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n got %v\nwant %s", err, tc.want)
			}
		})
	}
}

// The auth file's content is a secret: no error may carry it, whatever else is wrong.
func TestAuthFileContentNeverInErrors(t *testing.T) {
	const secret = "Basic c2VjcmV0LXVzZXI6aHVudGVyMg=="
	dir := t.TempDir()
	auth := filepath.Join(dir, "auth")
	if err := os.WriteFile(auth, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "unreadable")
	if err := os.WriteFile(unreadable, []byte(secret), 0o000); err != nil {
		t.Fatal(err)
	}
	withAuth := "WARMUP_AUTH_HEADER_FILE=" + auth
	provocations := [][]string{
		{withAuth},
		{withAuth, "WARMUP_BUDGET=nope"},
		{withAuth, ctl, "WARMUP_BUDGET=0s"},
		{withAuth, ctl, "WARMUP_BROKER_URL=broker"},
		{withAuth, ctl, "WARMUP_QUERY='"},
		{withAuth, ctl, "WARMUP_LOG_LEVEL=loud"},
		{withAuth, ctl, "WARMUP_AUTHHEADER_FILE=" + auth},
		{ctl, "WARMUP_AUTH_HEADER_FILE=" + unreadable},
		{ctl, "WARMUP_AUTH_HEADER_FILE=" + auth + "/"},
		{ctl, "WARMUP_AUTH_HEADER_FILE=" + dir},
	}
	for _, env := range provocations {
		_, _, err := LoadFrom(env)
		if err == nil {
			// Running as root can read a 0o000 file: then there is nothing to leak.
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "c2VjcmV0") {
			t.Errorf("LoadFrom(%q) error carries the auth file's content: %q", env, err)
		}
	}
}

func TestParseLevel(t *testing.T) {
	for _, ok := range []string{"debug", "INFO", "warn", "Warning", "error"} {
		if _, err := ParseLevel(ok); err != nil {
			t.Errorf("ParseLevel(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "trace", "fatal"} {
		if _, err := ParseLevel(bad); err == nil {
			t.Errorf("ParseLevel(%q): no error", bad)
		}
	}
}

func TestURLWithCredentialsIsRejectedWithoutEchoingThem(t *testing.T) {
	for _, name := range []string{"WARMUP_BROKER_URL", "WARMUP_CONTROLLER_URL"} {
		_, _, err := LoadFrom([]string{"WARMUP_TABLES=t", name + "=http://admin:hunter2secret@127.0.0.1:8099"})
		if err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("%s with credentials: err = %v; want an error naming it without the password", name, err)
		}
	}
}

func TestTableListMustNameTables(t *testing.T) {
	for env, want := range map[string]string{
		"WARMUP_TABLES= , ":         `WARMUP_TABLES=" , ": expected comma-separated table names, such as orders,clicks`,
		`WARMUP_TABLES=orders"x`:    `WARMUP_TABLES="orders\"x": table "orders\"x": expected letters, digits, '_', '-' or '.' only`,
		"WARMUP_TABLES=a b":         `WARMUP_TABLES="a b": table "a b": expected letters, digits, '_', '-' or '.' only`,
		"WARMUP_LISTEN_ADDR=:99999": `WARMUP_LISTEN_ADDR=":99999": expected host:port or :port with a port from 0 to 65535, such as :9095`,
	} {
		_, _, err := LoadFrom([]string{"WARMUP_CONTROLLER_URL=http://c:9000", env})
		if err == nil || err.Error() != want {
			t.Errorf("%s: err %v, want %s", env, err, want)
		}
	}
	if _, _, err := LoadFrom([]string{"WARMUP_TABLES=db.orders_OFFLINE,clicks-2"}); err != nil {
		t.Errorf("valid names rejected: %v", err)
	}
}

func TestAuthHeaderValueInThePathVariableIsNotEchoed(t *testing.T) {
	secret := "Basic d2FybXVwOnMzY3JldA=="
	_, _, err := LoadFrom([]string{"WARMUP_TABLES=t", "WARMUP_AUTH_HEADER_FILE=" + secret})
	if err == nil || !strings.Contains(err.Error(), "WARMUP_AUTH_HEADER_FILE") || strings.Contains(err.Error(), "d2FybXVw") {
		t.Fatalf("err = %v", err)
	}
}

// A cap that cannot give the floor within the budget is a warning: every run
// will end by its budget. A cap that can, no cap, or no warmup: none.
func TestRateBelowTheFloorWarns(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want []string
	}{
		{[]string{"WARMUP_MAX_PROBE_RATE=5"}, []string{"WARMUP_MAX_PROBE_RATE=5: WARMUP_MIN_ITERATIONS=300 takes 60 s at that rate, more than WARMUP_BUDGET=15s: " +
			"every run will end by its budget, short of its floor (at least 20 probes per second reach it)"}},
		{[]string{"WARMUP_MAX_PROBE_RATE=0.7", "WARMUP_MIN_ITERATIONS=100", "WARMUP_BUDGET=1m"}, []string{"WARMUP_MAX_PROBE_RATE=0.7: WARMUP_MIN_ITERATIONS=100 takes 142.9 s at that rate, more than WARMUP_BUDGET=1m0s: " +
			"every run will end by its budget, short of its floor (at least 1.7 probes per second reach it)"}},
		{[]string{"WARMUP_MAX_PROBE_RATE=20"}, nil}, // 300 in exactly 15 s
		{[]string{"WARMUP_MAX_PROBE_RATE=0"}, nil},
		{[]string{"WARMUP_MAX_PROBE_RATE=5", "WARMUP_MIN_ITERATIONS=0"}, nil},
		{[]string{"WARMUP_MAX_PROBE_RATE=5", "WARMUP_ENABLED=false"}, nil},
		{[]string{"WARMUP_MAX_PROBE_RATE=5", "WARMUP_ENABLED=false", "WARMUP_FAIL_CLOSED=true"}, nil},
	} {
		_, warns := mustLoad(t, append([]string{ctl}, c.env...)...)
		if !reflect.DeepEqual(warns, c.want) {
			t.Errorf("%q: warnings\n got %q\nwant %q", c.env, warns, c.want)
		}
	}
}
