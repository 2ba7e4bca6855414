package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// build is one build of the command, made once per test run: binary() as shipped, others with
// link-time settings (ldflags) for the tests that need them.
type build struct {
	ldflags string
	once    sync.Once
	path    string
	err     error
}

func (b *build) get(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "warmup-sidecar-bin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "warmup-sidecar")
		args := []string{"build", "-o", b.path}
		if b.ldflags != "" {
			args = append(args, "-ldflags", b.ldflags)
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

var shipped build

// binary is the command as shipped.
func binary(t *testing.T) string { return shipped.get(t) }

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WARMUP_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

func TestBadConfigExitsTwoNamingTheVariable(t *testing.T) {
	bin := binary(t)
	cases := []struct{ env, want string }{
		{"WARMUP_BUDGET=soon", "WARMUP_BUDGET"},
		{"WARMUP_BUDGETS=15s", "WARMUP_BUDGETS: unknown variable"},
		{"WARMUP_MAX_TABLES=0", "WARMUP_MAX_TABLES"},
		{"WARMUP_BROKER_URL=localhost:8099", "WARMUP_BROKER_URL"},
	}
	for _, c := range cases {
		for _, sub := range []string{"serve", "once", "plan"} {
			cmd := exec.Command(bin, sub)
			cmd.Env = cleanEnv("WARMUP_TABLES=t", c.env)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 2 {
				t.Errorf("%s with %s: err %v, want exit 2", sub, c.env, err)
			}
			if !strings.Contains(stderr.String(), c.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
				t.Errorf("%s with %s: stderr %q, want one line containing %q", sub, c.env, stderr.String(), c.want)
			}
		}
	}
}

func TestUnknownSubcommandExitsTwo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"warm"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `"warm"`) {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
}

// A helm command line still naming `warmup-sidecar inject` fails with directions, not silence.
func TestInjectPointsToWarmupInject(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"inject", "--values=warmup-values.yaml"}, &out, &errb)
	if code != 2 || out.Len() != 0 {
		t.Fatalf("code %d, stdout %q: want 2 and nothing on stdout (helm would apply it)", code, out.String())
	}
	for _, w := range []string{"--post-renderer warmup-inject", "go install github.com/warmup-sidecar/warmup-sidecar/cmd/warmup-inject@latest"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errb.String())
		}
	}
}

// The sidecar binary ships in every broker pod: the post-renderer's Helm, Sprig and JSON
// Schema libraries (and client-go behind them) stay out of it.
func TestBinaryLinksNoHelm(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, banned := range []string{"helm.sh/", "github.com/Masterminds/sprig", "github.com/santhosh-tekuri/jsonschema", "k8s.io/", "/internal/inject", "/charts"} {
			if strings.Contains(p, banned) {
				t.Errorf("warmup-sidecar depends on %s", p)
			}
		}
	}
}

func TestPlanPrintsTablesAndCoverage(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	plan := func(env ...string) string {
		t.Helper()
		cmd := exec.Command(binary(t), "plan")
		cmd.Env = cleanEnv(append([]string{"WARMUP_BROKER_URL=" + b.URL(), "WARMUP_CONTROLLER_URL=" + c.URL(), "WARMUP_MAX_TABLES=1"}, env...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("plan %q: %v\n%s", env, err, out)
		}
		return string(out)
	}
	lacks := func(out string, wants ...string) {
		t.Helper()
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("plan output lacks %q:\n%s", want, out)
			}
		}
	}
	// A 1.5.1 cluster as the fake plays it by default: schema shapes on both engines.
	out := plan()
	lacks(out, "table events", "legs:    events_OFFLINE, events_REALTIME",
		"coverage: 2 of 3 server(s); uncovered: Server_10.0.0.1_8098",
		`query [group_by_1]: SELECT "category", COUNT(*)`, `query [mse_group_by_1]: SET useMultistageEngine=true; SELECT "category"`,
		"multi-stage engine: the broker serves the multi-stage engine")
	if strings.Contains(out, "LIMIT 1 for") {
		t.Errorf("plan fell back to LIMIT 1 on a cluster with schemas:\n%s", out)
	}
	// No probe: the engine's detection query and a sample per leg only.
	if b.Queries() != 3 || b.Samples() != 2 {
		t.Errorf("plan sent %d queries (%d samples), want the engine's detection and a sample per leg", b.Queries(), b.Samples())
	}
	lacks(plan("WARMUP_MULTISTAGE=off"), "multi-stage engine: multi-stage probes are off")
	if b.Queries() != 5 {
		t.Errorf("plan with multi-stage probes off sent a query besides its samples (%d in all)", b.Queries())
	}
	// A broker older than the multi-stage engine, a controller without schemas:
	// LIMIT 1 per leg, and why.
	b.SetMultiStage(fakepinot.MultiStageAbsent)
	c.SetSchemaAnswer(fakepinot.SchemaNotFound)
	lacks(plan(), `query [limit1]: SELECT * FROM "events_REALTIME" LIMIT 1`, "LIMIT 1 for events_OFFLINE: no schema",
		"multi-stage engine: the broker answered from its single-stage engine")
}

// plan -json is a stable document: snake_case keys from the plan types' tags.
func TestPlanJSON(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	// A controller without schemas and a broker without the multi-stage engine,
	// so the plan has fallbacks to list too.
	b.SetMultiStage(fakepinot.MultiStageAbsent)
	c.SetSchemaAnswer(fakepinot.SchemaNotFound)
	cmd := exec.Command(binary(t), "plan", "-json")
	cmd.Env = cleanEnv("WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(), "WARMUP_MAX_TABLES=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("plan -json: %v\n%s", err, out)
	}
	var doc struct {
		Custom    *bool             `json:"custom"`
		Queries   []string          `json:"queries"`
		Shapes    []string          `json:"shapes"`
		Fallbacks map[string]string `json:"shape_fallbacks"`
		Engine    *struct {
			MultiStage bool   `json:"multi_stage"`
			Found      string `json:"found"`
		} `json:"engine"`
		Tables []struct {
			Name    string   `json:"name"`
			Legs    []string `json:"legs"`
			Servers []string `json:"servers"`
		} `json:"tables"`
		Coverage *struct {
			Chosen    []map[string]any `json:"chosen"`
			Universe  []string         `json:"universe"`
			Uncovered []string         `json:"uncovered"`
		} `json:"coverage"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Empty lists (dropped, capped) and an unset catalog error are left out.
	// The controller has no schemas: each leg keeps LIMIT 1, and says why.
	if want := []string{"coverage", "custom", "engine", "queries", "shape_fallbacks", "shapes", "tables"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("plan -json keys %q, want %q", keys, want)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("plan -json output does not match the documented keys: %v\n%s", err, out)
	}
	if doc.Custom == nil || *doc.Custom || len(doc.Tables) != 1 || doc.Tables[0].Name != "events" ||
		!reflect.DeepEqual(doc.Tables[0].Legs, []string{"events_OFFLINE", "events_REALTIME"}) || len(doc.Tables[0].Servers) != 2 {
		t.Errorf("plan -json tables: %s", out)
	}
	if doc.Coverage == nil || len(doc.Coverage.Universe) != 3 || !reflect.DeepEqual(doc.Coverage.Uncovered, []string{"Server_10.0.0.1_8098"}) {
		t.Errorf("plan -json coverage: %s", out)
	}
	if len(doc.Queries) != 2 || len(doc.Shapes) != 2 || len(doc.Fallbacks) != 2 {
		t.Errorf("plan -json queries %q, shapes %q, fallbacks %q", doc.Queries, doc.Shapes, doc.Fallbacks)
	}
	if doc.Engine == nil || doc.Engine.MultiStage || !strings.Contains(doc.Engine.Found, "single-stage") {
		t.Errorf("plan -json engine %+v: the fake answers from its single-stage engine", doc.Engine)
	}
}

func TestOnceExitCodes(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer b.Close()
	env := cleanEnv("WARMUP_BROKER_URL="+b.URL(), "WARMUP_TABLES=orders", "WARMUP_MIN_ITERATIONS=50", "WARMUP_BUDGET=3s")
	cmd := exec.Command(binary(t), "once")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("once against a good broker: %v\n%s", err, out)
	}
	cmd = exec.Command(binary(t), "once")
	cmd.Env = append(env, "WARMUP_MIN_ITERATIONS=1000000", "WARMUP_BUDGET=500ms")
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("once with an unreachable floor: %v, want exit 1", err)
	}
}

func TestServeWarmsThenStopsCleanlyOnSIGTERM(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	addr := freeAddr(t)
	sc := serveBinary(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(),
		"WARMUP_LISTEN_ADDR="+addr, "WARMUP_MIN_ITERATIONS=100", "WARMUP_CONCURRENCY=4")
	waitReady(t, addr, sc.logs)
	if code, body := httpGet("http://" + addr + "/metrics"); code != 200 || !strings.Contains(body, "pinot_warmup_broker_warm 1") {
		t.Fatalf("/metrics: %d, warm gauge not 1", code)
	}
	sc.stopBySIGTERM(t)
	for _, want := range []string{`"phase":"warming"`, `"phase":"warm"`, `"msg":"warmup finished"`, `"outcome":"warm"`, `"msg":"stopped"`} {
		if !strings.Contains(sc.logs.String(), want) {
			t.Errorf("logs lack %s", want)
		}
	}
}

// waitReady waits up to 10s for the sidecar at addr to answer /readyz 200.
func waitReady(t *testing.T, addr string, logs *syncBuf) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := httpGet("http://" + addr + "/readyz")
		if code == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never 200; logs:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// served is the binary serving, with its stderr.
type served struct {
	cmd    *exec.Cmd
	exited chan error
	logs   *syncBuf
}

// serveBinary starts the binary with env; the test's end kills it by PID if still running.
func serveBinary(t *testing.T, env ...string) *served {
	t.Helper()
	return serveBinaryAt(t, binary(t), env...)
}

// serveBinaryAt is serveBinary with another build of the command (bin).
func serveBinaryAt(t *testing.T, bin string, env ...string) *served {
	t.Helper()
	s := &served{cmd: exec.Command(bin, "-drain=200ms"), exited: make(chan error, 1), logs: &syncBuf{}}
	s.cmd.Env = cleanEnv(env...)
	s.cmd.Stderr = s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	return s
}

// stopBySIGTERM signals the sidecar and insists it exits 0 within 8s.
func (s *served) stopBySIGTERM(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v, want 0; logs:\n%s", err, s.logs.String())
		}
	case <-time.After(8 * time.Second):
		t.Fatal("no exit within 8s of SIGTERM")
	}
}

func httpGet(url string) (int, string) {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
