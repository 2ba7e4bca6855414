//go:build dashboard

// Package dashboard checks the chart's Grafana dashboard against a real
// Prometheus server (Debian's package, installed by scripts/install-tools.sh)
// scraping a real warmup-sidecar while it warms a fake broker: every PromQL
// expression must parse and return data.
package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

const dashboardFile = "../../charts/pinot-broker-warmup/dashboards/pinot-broker-warmup.json"

func TestEveryDashboardQueryReturnsDataFromARealPrometheus(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not on PATH: run scripts/install-tools.sh (Debian package prometheus)")
	}
	exprs := dashboardExprs(t)
	if len(exprs) < 8 {
		t.Fatalf("dashboard has %d expressions, expected the full set", len(exprs))
	}

	// A broker whose probes take ~5 ms: a floor of 4000 at concurrency 1 keeps the
	// sidecar warming for ~20 s, long enough for rate() windows full of samples.
	// Its JMX exporter-like /metrics gives the JIT compile rate panel data.
	broker := fakepinot.NewBroker(fakepinot.ThreeServers())
	ctrl := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer broker.Close()
	defer ctrl.Close()
	broker.SetDelay(5 * time.Millisecond)

	dir := t.TempDir()
	bin, err := sidecar.Build(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// The broker JVM's AOT log as a JDK 25 broker started from its cache writes it (real lines,
	// internal/aotlog/testdata), so the AOT cache panel has a state to show.
	aotLog := filepath.Join(dir, "aot.log")
	used, err := os.ReadFile(filepath.Join("..", "..", "internal", "aotlog", "testdata", "used.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(aotLog, used, 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := sidecar.Start(bin, map[string]string{
		"WARMUP_BROKER_URL": broker.URL(), "WARMUP_CONTROLLER_URL": ctrl.URL(),
		"WARMUP_MIN_ITERATIONS": "4000", "WARMUP_BUDGET": "60s", "WARMUP_MAX_TABLES": "1",
		"WARMUP_CONCURRENCY": "1", "WARMUP_JVM_METRICS_URL": broker.JVMMetricsURL(),
		"WARMUP_BROKER_AOT_LOG": aotLog,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Stop(10 * time.Second)

	// A second pod whose sidecar turns warm within a second (a fast broker, a floor of 50), so
	// the fleet panels see two pods in two phases: "by pod" must mean two series.
	broker2 := fakepinot.NewBroker(fakepinot.ThreeServers())
	ctrl2 := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer broker2.Close()
	defer ctrl2.Close()
	sc2, err := sidecar.Start(bin, map[string]string{
		"WARMUP_BROKER_URL": broker2.URL(), "WARMUP_CONTROLLER_URL": ctrl2.URL(),
		"WARMUP_MIN_ITERATIONS": "50", "WARMUP_EXIT": "floor", "WARMUP_MAX_TABLES": "1",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sc2.Stop(10 * time.Second)

	promAddr := freeAddr(t)
	cfg := filepath.Join(dir, "prometheus.yml")
	target := strings.TrimPrefix(sc.URL, "http://")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: warmup-sidecar
    static_configs:
      - targets: [%q]
        labels: {namespace: pinot, pod: pinot-broker-0}
      - targets: [%q]
        labels: {namespace: pinot, pod: pinot-broker-1}
`, target, strings.TrimPrefix(sc2.URL, "http://"))), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := exec.Command(promBin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	prom.Stdout, prom.Stderr = os.Stderr, os.Stderr
	prom.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = prom.Process.Kill(); _ = prom.Wait() }()
	api := "http://" + promAddr

	// Wait until the sidecar is warming and has been scraped for 15 s of it.
	var warmingSince time.Time
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, err := sc.Status()
		if err == nil && st.Phase == "warming" && warmingSince.IsZero() {
			warmingSince = time.Now()
		}
		if !warmingSince.IsZero() && time.Since(warmingSince) > 15*time.Second {
			break
		}
		if err == nil && st.Outcome != "" {
			t.Fatalf("warmup finished after %.1fs, too soon for the test's windows", st.DurationSeconds)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if warmingSince.IsZero() {
		t.Fatalf("sidecar never warmed; logs:\n%s", sc.Logs())
	}
	if st, err := sc2.Status(); err != nil || st.Outcome != "warm" {
		t.Fatalf("the second sidecar is not warm (%+v, %v); logs:\n%s", st, err, sc2.Logs())
	}
	at := time.Now().Add(-time.Second)

	vars := strings.NewReplacer(`$namespace`, "pinot", `$pod`, ".*", `$__rate_interval`, "10s")
	labelValues := regexp.MustCompile(`^label_values\((.*),\s*(\w+)\)$`)
	for _, raw := range exprs {
		expr := vars.Replace(raw)
		if m := labelValues.FindStringSubmatch(expr); m != nil {
			// Grafana's label_values(): the series API must list the label.
			if !seriesHaveLabel(t, api, m[1], m[2]) {
				t.Errorf("%s: no series with label %s", raw, m[2])
			}
			continue
		}
		n, nonNaN := instantQuery(t, api, expr, at)
		if n == 0 || nonNaN == 0 {
			t.Errorf("%s: %d series (%d not NaN) at a mid-warmup instant, want data", raw, n, nonNaN)
		} else {
			t.Logf("ok (%d series): %s", n, raw)
		}
	}
	checkFleetRow(t, api, vars, at)
}

// checkFleetRow checks what the fleet row's panels show with one pod warming and one warm: the
// pods per phase, and one series per pod for the per-pod panels.
func checkFleetRow(t *testing.T, api string, vars *strings.Replacer, at time.Time) {
	t.Helper()
	fleet := panelExprs(t, "Fleet")
	for _, title := range []string{"Pods per phase", "Warmup duration per pod (last run)", "Probes per second per pod"} {
		if len(fleet[title]) != 1 {
			t.Fatalf("fleet row: panel %q has %d queries, want 1 (row: %v)", title, len(fleet[title]), fleet)
		}
	}
	phases := instantVector(t, api, vars.Replace(fleet["Pods per phase"][0]), at, "phase")
	want := map[string]float64{"waiting_for_broker": 0, "warming": 1, "warm": 1, "stopping": 0}
	if fmt.Sprint(phases) != fmt.Sprint(want) {
		t.Errorf("pods per phase %v, want %v", phases, want)
	}
	for _, title := range []string{"Warmup duration per pod (last run)", "Probes per second per pod"} {
		byPod := instantVector(t, api, vars.Replace(fleet[title][0]), at, "pod")
		if len(byPod) != 2 {
			t.Errorf("%s: %v, want one series per pod (2)", title, byPod)
		}
		if title == "Probes per second per pod" && !(byPod["pinot-broker-0"] > 0) {
			t.Errorf("%s: the warming pod probes at %v/s, want > 0", title, byPod["pinot-broker-0"])
		}
		if title == "Warmup duration per pod (last run)" && !(byPod["pinot-broker-1"] > 0) {
			t.Errorf("%s: the warm pod's last run took %vs, want > 0", title, byPod["pinot-broker-1"])
		}
	}
}

// panelExprs maps each panel title of the named row to its queries: the panels after the row's
// header, up to the next row.
func panelExprs(t *testing.T, rowTitle string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Type, Title string
			Targets     []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	out := map[string][]string{}
	in := false
	for _, p := range d.Panels {
		if p.Type == "row" {
			in = p.Title == rowTitle
			continue
		}
		if in {
			for _, tg := range p.Targets {
				out[p.Title] = append(out[p.Title], tg.Expr)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("dashboard has no row %q with panels", rowTitle)
	}
	return out
}

// instantVector evaluates expr at `at` and maps each series' value of label to its sample.
func instantVector(t *testing.T, api, expr string, at time.Time, label string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, smp := range query(t, api, expr, at) {
		out[smp.metric[label]] = smp.value
	}
	return out
}

type sample struct {
	metric map[string]string
	value  float64
}

// query evaluates expr at `at` through Prometheus's HTTP API.
func query(t *testing.T, api, expr string, at time.Time) []sample {
	t.Helper()
	q := url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	getJSON(t, api+"/api/v1/query?"+q.Encode(), &body)
	if body.Status != "success" {
		t.Fatalf("%s: %s", expr, body.Error)
	}
	var out []sample
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: value %v: %v", expr, r.Value[1], err)
		}
		out = append(out, sample{metric: r.Metric, value: v})
	}
	return out
}

// dashboardExprs collects every "expr" and variable "query" of the dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && (k == "expr" || (k == "query" && strings.Contains(s, "("))) {
					out = append(out, s)
					continue
				}
				walk(val)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(d)
	return out
}

func instantQuery(t *testing.T, api, expr string, at time.Time) (series, nonNaN int) {
	t.Helper()
	samples := query(t, api, expr, at)
	for _, smp := range samples {
		if !math.IsNaN(smp.value) {
			nonNaN++
		}
	}
	return len(samples), nonNaN
}

func seriesHaveLabel(t *testing.T, api, match, label string) bool {
	t.Helper()
	var body struct {
		Status string              `json:"status"`
		Data   []map[string]string `json:"data"`
	}
	getJSON(t, api+"/api/v1/series?"+url.Values{"match[]": {match}}.Encode(), &body)
	for _, s := range body.Data {
		if s[label] != "" {
			return true
		}
	}
	return false
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v: %s", u, err, b)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
