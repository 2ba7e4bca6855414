//go:build kube

package node

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
)

// The test binary doubles as the test image's process (image testbed/http): with TESTBED_HELPER=http
// it serves HTTP at PORT and writes what happens to it, each line "<event> <unix ns> <pid> [detail]",
// to the file EVENTS, so a test can hold the node agent's timing against the spec it reads.
//
//	GET /healthz  200 from HEALTHY_AFTER until FAIL_AFTER after the process started (durations;
//	              default always), else 503; sleeps HEALTHZ_SLEEP first (a handler slower than a
//	              probe's timeout). Any query is kept in the event, to tell probes apart.
//	GET /startz   503 until STARTED_AFTER, then 200 (a startup probe's target).
//	GET /prestop  200 (a preStop httpGet hook).
//	SIGTERM       exits TERM_DELAY later (a broker draining); TERM_IGNORE=1 ignores it.
//	BURN=n        n goroutines spinning (CPU limit tests).
//	SPAWN=1       starts `sleep 300` in its own session, as a process a container leaves behind
//	              (not in the container's process group: only the cgroup holds it).
//
// Events: start, probe <uri> <code>, prestop, sigterm, exit, child <pid>, listen-error <err>.
func TestMain(m *testing.M) {
	if os.Getenv("TESTBED_HELPER") == "http" {
		os.Exit(runHelper())
	}
	code := m.Run()
	stopSharedControlPlane()
	os.Exit(code)
}

type helperEvents struct {
	mu sync.Mutex
	f  *os.File
}

func (h *helperEvents) record(name string, detail ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		return
	}
	fmt.Fprintln(h.f, strings.Join(append([]string{name, strconv.FormatInt(time.Now().UnixNano(), 10), strconv.Itoa(os.Getpid())}, detail...), " "))
}

func envDuration(name string, def time.Duration) time.Duration {
	d, err := time.ParseDuration(os.Getenv(name))
	if err != nil {
		return def
	}
	return d
}

func runHelper() int {
	start := time.Now()
	h := &helperEvents{}
	if p := os.Getenv("EVENTS"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper: events file:", err)
			return 1
		}
		defer f.Close()
		h.f = f
	}
	h.record("start")
	healthyAfter, failAfter := envDuration("HEALTHY_AFTER", 0), envDuration("FAIL_AFTER", 1<<62)
	startedAfter, slow := envDuration("STARTED_AFTER", 0), envDuration("HEALTHZ_SLEEP", 0)
	answer := func(w http.ResponseWriter, r *http.Request, ok bool) {
		code := http.StatusServiceUnavailable
		if ok {
			code = http.StatusOK
		}
		h.record("probe", r.URL.RequestURI(), strconv.Itoa(code))
		w.WriteHeader(code)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		since := time.Since(start)
		time.Sleep(slow)
		answer(w, r, since >= healthyAfter && since < failAfter)
	})
	mux.HandleFunc("/startz", func(w http.ResponseWriter, r *http.Request) {
		answer(w, r, time.Since(start) >= startedAfter)
	})
	mux.HandleFunc("/prestop", func(w http.ResponseWriter, _ *http.Request) { h.record("prestop") })
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		h.record("listen-error", strings.ReplaceAll(err.Error(), " ", "_"))
		return 1
	}
	go func() { _ = http.Serve(ln, mux) }()

	var spin atomic.Int64
	for range atoiOr(os.Getenv("BURN"), 0) {
		go func() {
			for {
				spin.Add(1)
			}
		}()
	}
	if os.Getenv("SPAWN") == "1" {
		child := exec.Command("/bin/sleep", "300") // the container's env has no PATH
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			h.record("child-error", strings.ReplaceAll(err.Error(), " ", "_"))
			return 1
		}
		h.record("child", strconv.Itoa(child.Process.Pid))
		go func() { _ = child.Wait() }()
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	for range sig {
		h.record("sigterm")
		if os.Getenv("TERM_IGNORE") == "1" {
			continue
		}
		time.Sleep(envDuration("TERM_DELAY", 0))
		h.record("exit")
		return 0
	}
	return 0
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// helperLauncher runs the test binary as image testbed/http, serving the container port HELPER_PORT
// of its env (8080 if unset) and writing its events to <container dir>/events.
type helperLauncher struct{}

func (helperLauncher) Process(c launch.Container) (launch.Process, error) {
	port := 8080
	for _, e := range c.Env {
		if v, ok := strings.CutPrefix(e, "HELPER_PORT="); ok {
			port = atoiOr(v, port)
		}
	}
	hp, err := c.Net.HostPort(int32(port))
	if err != nil {
		return launch.Process{}, err
	}
	// GORACE: a -race build sleeps 1 s before it exits, which would read as the agent's delay.
	env := append(append([]string{}, c.Env...), "TESTBED_HELPER=http", "PORT="+strconv.Itoa(hp), "EVENTS="+c.Dir+"/events",
		"GORACE=atexit_sleep_ms=0")
	return launch.Process{Argv: []string{os.Args[0]}, Env: env, Dir: c.Dir}, nil
}

// helperEvent is one line of a helper's events file.
type helperEvent struct {
	Name   string
	At     time.Time
	PID    int
	Detail []string
}

func (e helperEvent) String() string {
	return fmt.Sprintf("%s@%s pid %d %v", e.Name, e.At.Format("15:04:05.000"), e.PID, e.Detail)
}

// readEvents parses a helper's events file ("" lines and a torn last line skipped).
func readEvents(path string) ([]helperEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []helperEvent
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			continue
		}
		ns, err1 := strconv.ParseInt(fs[1], 10, 64)
		pid, err2 := strconv.Atoi(fs[2])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, helperEvent{Name: fs[0], At: time.Unix(0, ns), PID: pid, Detail: fs[3:]})
	}
	return out, sc.Err()
}

// pick is the events named name (and, for probes, whose URI starts with uri).
func pick(evs []helperEvent, name, uri string) []helperEvent {
	var out []helperEvent
	for _, e := range evs {
		if e.Name == name && (uri == "" || len(e.Detail) > 0 && strings.HasPrefix(e.Detail[0], uri)) {
			out = append(out, e)
		}
	}
	return out
}

// before is the events strictly before t.
func before(evs []helperEvent, t time.Time) []helperEvent {
	var out []helperEvent
	for _, e := range evs {
		if e.At.Before(t) {
			out = append(out, e)
		}
	}
	return out
}

// withCode is the probe events answered with code.
func withCode(evs []helperEvent, code string) []helperEvent {
	var out []helperEvent
	for _, e := range evs {
		if len(e.Detail) > 1 && e.Detail[1] == code {
			out = append(out, e)
		}
	}
	return out
}
