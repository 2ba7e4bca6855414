//go:build image

package image

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/container"
	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// The amd64 image, run by podman and runc as the chart's container (its env, args,
// securityContext and resources, read from warmup-inject's output) beside a broker: alive at
// once, not ready while the broker is unhealthy, ready once warm; on SIGTERM not ready for the
// drain, then exit 0 within the pod's terminationGracePeriodSeconds.
func TestImageRunsAsThePodRunsIt(t *testing.T) {
	archive, a := readArchive(t)
	broker := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer broker.Close()
	broker.SetStatus("STARTING")
	controller := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer controller.Close()

	port, err := container.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	pod, err := container.RenderedPod(fmt.Sprintf("warmup:\n  brokerUrl: %s\n  controllerUrl: %s\n  listenPort: %d\n",
		broker.URL(), controller.URL(), port))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rendered securityContext %s, resources %s, grace %ds", pod.Sidecar.SecurityContext, pod.Sidecar.Resources, pod.TerminationGracePeriodSeconds)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	podman, image := container.LoadForTest(t, ctx, archive, "amd64")
	ctr, err := podman.Run(ctx, image, pod)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image %s (%s) running as %s at %s", a.Tag, image[:12], ctr.Name, ctr.URL)
	defer func() {
		if t.Failed() {
			t.Logf("container logs:\n%s", ctr.Logs())
		}
	}()

	// Alive at once; not ready while the broker's /health says 503.
	waitFor(t, 30*time.Second, "/livez 200", func() bool { return get(ctr.URL+"/livez") == 200 })
	for range 10 {
		if code := get(ctr.URL + "/readyz"); code != http.StatusServiceUnavailable {
			t.Fatalf("/readyz %d with the broker unhealthy, want 503", code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkProcess(t, ctx, ctr, pod.Sidecar.SecurityContext)
	checkMemoryLimit(t, ctx, ctr, pod.Sidecar.Resources)

	broker.SetStatus("GOOD")
	healthy := time.Now()
	waitFor(t, 2*time.Minute, "/readyz 200 once warm", func() bool { return get(ctr.URL+"/readyz") == 200 })
	t.Logf("ready %s after the broker turned healthy", time.Since(healthy).Round(10*time.Millisecond))

	// SIGTERM as the kubelet sends it: every /readyz answer until the listener closes is 503.
	grace := time.Duration(pod.TerminationGracePeriodSeconds) * time.Second
	pid, err := ctr.PID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	term := time.Now()
	if err := ctr.Signal(ctx, "TERM"); err != nil {
		t.Fatal(err)
	}
	answers := map[int]int{}
	for time.Since(term) < grace {
		code := get(ctr.URL + "/readyz")
		if code == 0 {
			break
		}
		answers[code]++
		time.Sleep(50 * time.Millisecond)
	}
	closed := time.Since(term)
	// When the process ends is read from /proc, not from podman: on a busy machine podman's own
	// cleanup after the exit took 20+ s (measured), which is podman's, not the pod's, time.
	for time.Since(term) < grace {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	exited := time.Since(term)
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	code, err := ctr.Wait(wctx)
	wcancel()
	if err != nil {
		t.Fatalf("no exit code %s after SIGTERM: %v", time.Since(term).Round(time.Millisecond), err)
	}
	t.Logf("SIGTERM: /readyz answers %v during the drain, listener closed after %s, process gone after %s, exit code %d from podman after %s (grace %s)",
		answers, closed.Round(time.Millisecond), exited.Round(time.Millisecond), code, time.Since(term).Round(time.Millisecond), grace)
	if answers[http.StatusServiceUnavailable] == 0 || len(answers) != 1 {
		t.Errorf("/readyz answers after SIGTERM %v: want 503 only, at least once (the drain)", answers)
	}
	if code != 0 || exited > grace {
		t.Errorf("exit %d after %s: want 0 within the grace period %s", code, exited, grace)
	}
}

// checkProcess reads the container's main process from /proc: what the kernel enforces, not what
// podman was asked for.
func checkProcess(t *testing.T, ctx context.Context, ctr *container.Ctr, raw json.RawMessage) {
	t.Helper()
	var sc container.SecurityContext
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	pid, err := ctr.PID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		status[k] = strings.Join(strings.Fields(v), " ")
	}
	want := map[string]string{"Seccomp": "0"}
	if sc.RunAsUser != nil {
		u := strconv.FormatInt(*sc.RunAsUser, 10)
		want["Uid"] = strings.Repeat(u+" ", 3) + u
	}
	if sc.RunAsGroup != nil {
		g := strconv.FormatInt(*sc.RunAsGroup, 10)
		want["Gid"] = strings.Repeat(g+" ", 3) + g
	}
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		want["NoNewPrivs"] = "1"
	}
	if sc.Capabilities != nil && len(sc.Capabilities.Add) == 0 && len(sc.Capabilities.Drop) == 1 && sc.Capabilities.Drop[0] == "ALL" {
		for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
			want[k] = "0000000000000000"
		}
	}
	if sc.SeccompProfile != nil && sc.SeccompProfile.Type == "RuntimeDefault" {
		want["Seccomp"] = "2" // a filter
	}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("/proc/%d/status %s: %q, want %q", pid, k, status[k], v)
		}
	}
	mounts, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		t.Fatal(err)
	}
	rootOpts := ""
	for _, line := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(line); len(f) > 5 && f[4] == "/" {
			rootOpts = f[5]
		}
	}
	readOnly := strings.HasPrefix(rootOpts+",", "ro,")
	if wantRO := sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem; readOnly != wantRO {
		t.Errorf("root filesystem mounted %q, want read-only %v", rootOpts, wantRO)
	}
	t.Logf("pid %d: Uid %s, Gid %s, CapEff %s, CapBnd %s, NoNewPrivs %s, Seccomp %s, root mounted %s",
		pid, status["Uid"], status["Gid"], status["CapEff"], status["CapBnd"], status["NoNewPrivs"], status["Seccomp"], rootOpts)
}

var client = &http.Client{Timeout: 2 * time.Second}

// get returns the status code of GET url, 0 when nothing answers.
func get(url string) int {
	resp, err := client.Get(url)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkMemoryLimit reads the memory limit of the container's cgroup: the rendered limit.
func checkMemoryLimit(t *testing.T, ctx context.Context, ctr *container.Ctr, resources json.RawMessage) {
	t.Helper()
	flags, err := container.ResourceFlags(resources)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(flags, "--memory")
	if i < 0 {
		return // no memory limit rendered
	}
	pid, err := ctr.PID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	var file string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		switch {
		case len(f) == 3 && slices.Contains(strings.Split(f[1], ","), "memory"):
			file = "/sys/fs/cgroup/memory" + f[2] + "/memory.limit_in_bytes"
		case len(f) == 3 && f[0] == "0" && f[1] == "" && file == "":
			file = "/sys/fs/cgroup" + f[2] + "/memory.max"
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("reading the container's memory limit: %v", err)
	}
	if strings.TrimSpace(string(got)) != flags[i+1] {
		t.Errorf("%s: %s, want the rendered limit %s bytes", file, strings.TrimSpace(string(got)), flags[i+1])
	}
	t.Logf("cgroup memory limit %s bytes (%s)", strings.TrimSpace(string(got)), file)
}
