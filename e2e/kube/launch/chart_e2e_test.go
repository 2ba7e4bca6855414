//go:build e2e

package launch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// TestChartBrokerAndSidecarRun runs the broker pod warmup-inject renders from the official chart
// (loopback listener, broker credentials, C1 only) through the launchers, as processes beside the
// harness's cluster: the broker joins it under the pod's instance id, answers /health and a
// COUNT(*) on the pod's host port, writes its GC log where the chart's path points, and the
// sidecar beside it turns /readyz 200.
//
//	cd e2e && nice -n 19 go test -tags e2e -count=1 -v -run TestChartBrokerAndSidecarRun ./kube/launch/
//
// WARMUP_E2E_BASE_PORT moves the harness's ports (default 27000); the pod's block sits above them.
func TestChartBrokerAndSidecarRun(t *testing.T) {
	base := 27000
	if v := os.Getenv("WARMUP_E2E_BASE_PORT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("WARMUP_E2E_BASE_PORT=%q: %v", v, err)
		}
		base = n
	}
	lib, err := cluster.InstallPinot(t.Context(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Start(t.Context(), cluster.Options{PinotLibDir: lib, BasePort: base,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })

	work := t.TempDir()
	pinot, err := NewPinot(lib, filepath.Join(work, "image"))
	if err != nil {
		t.Fatal(err)
	}
	side, err := NewSidecar(t.Context(), work)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := podnet.New(base+cluster.PortSpan, 10).Pod("pinot", "pinot-broker-0")
	if err != nil {
		t.Fatal(err)
	}
	fx := newPod(t, parseManifests(t, injected(t, `
auth: {existingSecret: broker-auth}
loopbackListener: {enabled: true}
brokerJvm: {c1Only: true}
`)), "pinot-broker", "pinot/pinot-broker-0", filepath.Join(work, "pod"), pod)
	fx.secrets["warmup-auth"] = map[string]string{"authorization": "Basic dXNlcjpwYXNz"}

	// What the test bed's Services and DNS will do: the chart's ZooKeeper and controller names
	// point at the harness's. The controller is reached on 127.0.0.2, which is loopback too but
	// not an address the pod means itself by, so the launcher leaves it alone.
	broker := fx.container("broker")
	setArg(t, &broker, "-zkAddress", fmt.Sprintf("127.0.0.1:%d", c.Ports().ZooKeeper))
	setArg(t, &broker, "-clusterName", c.Name())
	sidecarC := fx.container("warmup-sidecar")
	setEnv(&sidecarC, "WARMUP_CONTROLLER_URL", fmt.Sprintf("http://127.0.0.2:%d", c.Ports().Controller))

	bp := start(t, pinot, broker, filepath.Join(work, "logs"))
	sp := start(t, side, sidecarC, filepath.Join(work, "logs"))

	query := "http://127.0.0.1:" + hostPort(t, pod, 8099)
	waitOK(t, bp, query+"/health", 3*time.Minute)
	id := "Broker_127.0.0.1_" + hostPort(t, pod, 8099)
	if body := get(t, c.ControllerURL()+"/instances"); !strings.Contains(body, `"`+id+`"`) {
		t.Errorf("the controller's instances lack %s: %s", id, body)
	}
	if n, err := cluster.CountAt(t.Context(), query, cluster.TableBoth); err != nil || n != cluster.RowsBoth {
		t.Errorf("COUNT(*) FROM %s through the pod's broker = %d (%v), want %d", cluster.TableBoth, n, err, cluster.RowsBoth)
	}
	if _, err := os.Stat(filepath.Join(broker.Dir, "opt", "pinot", "gc-pinot-broker.log")); err != nil {
		t.Errorf("the GC log the chart's -Xlog names: %v", err)
	}
	waitOK(t, sp, "http://127.0.0.1:"+hostPort(t, pod, 9095)+"/readyz", 2*time.Minute)
	t.Logf("sidecar /status: %.600s", get(t, "http://127.0.0.1:"+hostPort(t, pod, 9095)+"/status"))
}

// start runs the container's process through l, stopped (by its pid) when the test ends.
func start(t *testing.T, l Launcher, c Container, logs string) *proc.Proc {
	t.Helper()
	pr, err := l.Process(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proc.Start(proc.Spec{Name: c.Name, Argv: pr.Argv, Env: pr.Env, Dir: pr.Dir, Log: filepath.Join(logs, c.Name+".log")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop(30 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(logs, c.Name+".log"))
			t.Logf("%s log (tail):\n%s", c.Name, tail(string(b), 40))
		}
	})
	return p
}

// waitOK polls url until it answers 200; it fails at once if p exits.
func waitOK(t *testing.T, p *proc.Proc, url string, within time.Duration) {
	t.Helper()
	began := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Logf("%s: 200 after %s", url, time.Since(began).Round(time.Millisecond))
				return
			}
			last = fmt.Sprintf("HTTP %d %.200s", resp.StatusCode, b)
		} else {
			last = err.Error()
		}
		select {
		case <-p.Done():
			code, why := p.ExitCode()
			t.Fatalf("%s exited (%d, %s) before %s answered 200 (last: %s)", p.Name, code, why, url, last)
		case <-ctx.Done():
			t.Fatalf("%s: no 200 within %s (last: %s)", url, within, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d %.300s", url, resp.StatusCode, b)
	}
	return string(b)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
