package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakekube"
	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// saToken is the pod's ServiceAccount token: long and distinctive, so that any 8-byte piece of
// it in an output is a leak.
const saToken = "eyJhbGciOiJSUzI1NiIsImtpZCI6Indhcm11cCJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6cGlub3Q6cGlub3QtYnJva2VyLXdhcm11cCJ9.c2lnbmF0dXJlLTcyOTEtYWxwaGEtYnJhdm8"

// boostedPod is the broker pod as the chart renders it with brokerCpuBoost: the broker's CPU
// request 2 and limit 4, boosted from 1 and 2.
func boostedPod() kubeapi.Pod {
	var p kubeapi.Pod
	p.Metadata.Name, p.Metadata.Namespace = "pinot-broker-0", "pinot"
	start := time.Now().Add(-2 * time.Second).UTC()
	p.Metadata.CreationTimestamp = start
	p.Status.StartTime = &start
	p.Spec.Containers = []kubeapi.Container{
		{Name: "broker", Resources: kubeapi.Resources{Requests: map[string]string{"cpu": "2", "memory": "1280Mi"}, Limits: map[string]string{"cpu": "4"}}},
		{Name: "warmup-sidecar", Resources: kubeapi.Resources{Requests: map[string]string{"cpu": "50m", "memory": "32Mi"}, Limits: map[string]string{"memory": "128Mi"}}},
	}
	p.Status.ContainerStatuses = []kubeapi.ContainerStatus{{Name: "broker", Resources: &kubeapi.Resources{Requests: map[string]string{"cpu": "2"}, Limits: map[string]string{"cpu": "4"}}}}
	return p
}

type boostStatus struct {
	Boost *struct {
		State           string `json:"state"`
		Reason          string `json:"reason"`
		GiveBackBecause string `json:"give_back_because"`
		Applied         *struct {
			Request, Limit string
		} `json:"applied"`
	} `json:"broker_cpu_boost"`
}

// boostEnv is the sidecar's boost environment as the chart renders it, against api.
func boostEnv(api *fakekube.Server, extra ...string) []string {
	env := append(api.Env(), "WARMUP_CPU_BOOST_ENABLED=true", "WARMUP_CPU_BOOST_TARGET_REQUEST=1", "WARMUP_CPU_BOOST_TARGET_LIMIT=2",
		"WARMUP_POD_NAME=pinot-broker-0", "WARMUP_POD_NAMESPACE=pinot", "WARMUP_KUBE_SERVICE_ACCOUNT_DIR="+api.Dir())
	return append(env, extra...)
}

// boostBed starts a fake broker and controller and the fake API server serving the boosted pod,
// each closed at the test's end; env is the sidecar's environment against them.
func boostBed(t *testing.T) (api *fakekube.Server, env []string) {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	t.Cleanup(b.Close)
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	t.Cleanup(c.Close)
	api, err := fakekube.New(boostedPod(), saToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	return api, boostEnv(api, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(), "WARMUP_MIN_ITERATIONS=50")
}

func waitBoost(t *testing.T, addr, state string, logs *syncBuf) (boostStatus, string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, body := httpGet("http://" + addr + "/status")
		var st boostStatus
		_ = json.Unmarshal([]byte(body), &st)
		if st.Boost != nil && st.Boost.State == state {
			return st, body
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker_cpu_boost never %s; /status:\n%s\nlogs:\n%s", state, body, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The binary boosted, warmed, then (no JIT signal: after the settle time) resized its own pod's
// broker container back to its target through the API server, and the kubelet's report ended
// it: /status, /metrics and the log say so, and the token appears in none of them.
func TestServeGivesTheCPUBoostBack(t *testing.T) {
	api, env := boostBed(t)
	api.Kubelet(true)
	addr := freeAddr(t)
	sc := serveBinary(t, append(env, "WARMUP_LISTEN_ADDR="+addr, "WARMUP_CONCURRENCY=2", "WARMUP_CPU_BOOST_SETTLE=1s", "WARMUP_LOG_LEVEL=debug")...)
	waitReady(t, addr, sc.logs)
	st, body := waitBoost(t, addr, "given_back", sc.logs)
	if !strings.Contains(st.Boost.GiveBackBecause, "no JIT signal: WARMUP_JVM_METRICS_URL is empty") ||
		st.Boost.Applied == nil || st.Boost.Applied.Limit != "2" || st.Boost.Applied.Request != "1" {
		t.Errorf("broker_cpu_boost %+v", st.Boost)
	}
	broker, _ := api.Pod().Container("broker")
	if req, lim := broker.Resources.CPU(); req != "1" || lim != "2" || broker.Resources.Requests["memory"] != "1280Mi" {
		t.Errorf("the pod's broker container after the give-back: %+v", broker.Resources)
	}
	if r := api.Resizes(); len(r) != 1 {
		t.Errorf("resizes %q, want one", r)
	}
	_, metrics := httpGet("http://" + addr + "/metrics")
	for _, want := range []string{`pinot_warmup_broker_cpu_boost{state="given_back"} 1`, `pinot_warmup_broker_cpu_boost{state="boosted"} 0`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	sc.stopBySIGTERM(t)
	logs := sc.logs.String()
	for _, want := range []string{`"msg":"broker CPU boost","state":"boosted"`, `"msg":"broker CPU boost","state":"giving_back"`, `"msg":"broker CPU boost","state":"given_back"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s", want)
		}
	}
	for where, text := range map[string]string{"logs": logs, "/status": body, "/metrics": metrics} {
		if p := leaked(text, saToken); p != "" {
			t.Errorf("%s carries %q, a piece of the ServiceAccount token", where, p)
		}
	}
	for _, a := range api.Authorizations() {
		if a != "Bearer "+saToken {
			t.Errorf("Authorization %q", a)
		}
	}
}

// A token without the right: the resize is refused (the API server's message even quoting the
// token), the boost ends failed and says what RBAC is needed, and the gate, the process and
// its stop are as without the boost.
func TestServeCPUBoostRefusedNeverHoldsTheGate(t *testing.T) {
	api, env := boostBed(t)
	api.RefuseResizes(403, "Forbidden", `pods "pinot-broker-0" is forbidden: User "system:serviceaccount:pinot:pinot" (token `+saToken+`) cannot patch resource "pods/resize" in API group "" in the namespace "pinot"`)
	addr := freeAddr(t)
	sc := serveBinary(t, append(env, "WARMUP_LISTEN_ADDR="+addr, "WARMUP_CPU_BOOST_SETTLE=0s")...)
	waitReady(t, addr, sc.logs)
	st, body := waitBoost(t, addr, "failed", sc.logs)
	if !strings.Contains(st.Boost.Reason, "needs get on pods and patch on pods/resize") || !strings.Contains(st.Boost.Reason, "keeps its boosted CPU") {
		t.Errorf("reason %q", st.Boost.Reason)
	}
	if code, _ := httpGet("http://" + addr + "/readyz"); code != 200 {
		t.Errorf("/readyz %d after a refused give-back", code)
	}
	_, metrics := httpGet("http://" + addr + "/metrics")
	if !strings.Contains(metrics, `pinot_warmup_broker_cpu_boost{state="failed"} 1`) {
		t.Error("/metrics lacks the failed state")
	}
	sc.stopBySIGTERM(t)
	if r := api.Resizes(); len(r) != 1 {
		t.Errorf("%d resizes, want 1: a 403 is sent again minutes later, not at once", len(r))
	}
	for where, text := range map[string]string{"logs": sc.logs.String(), "/status": body} {
		if p := leaked(text, saToken); p != "" {
			t.Errorf("%s carries %q, a piece of the ServiceAccount token", where, p)
		}
	}
}

// fastRetry is the command built with the boost's slow retry at 300ms instead of minutes: a
// link-time variable (main.boostSlowRetry) that no user setting reaches.
var fastRetry = build{ldflags: "-X main.boostSlowRetry=300ms"}

// A 403 on the first read of the pod (the Role not yet propagated when a helm upgrade raised the
// replicas and the Role's pod names together): the boost is failed, naming the RBAC, the pod is
// read again at the slow pace, and once allowed the CPU is given back.
func TestServeCPUBoostEarlyForbiddenReadThenGivenBack(t *testing.T) {
	api, env := boostBed(t)
	api.Kubelet(true)
	api.RefuseGets(1, 403, "Forbidden", `pods "pinot-broker-0" is forbidden: User "system:serviceaccount:pinot:pinot-broker-warmup" cannot get resource "pods" in API group "" in the namespace "pinot"`)
	addr := freeAddr(t)
	sc := serveBinaryAt(t, fastRetry.get(t), append(env, "WARMUP_LISTEN_ADDR="+addr, "WARMUP_CPU_BOOST_SETTLE=1s")...)
	waitReady(t, addr, sc.logs)
	st, _ := waitBoost(t, addr, "given_back", sc.logs)
	if st.Boost.Applied == nil || st.Boost.Applied.Request != "1" || st.Boost.Applied.Limit != "2" {
		t.Errorf("broker_cpu_boost %+v", st.Boost)
	}
	if n := api.Gets(); n < 2 {
		t.Errorf("%d reads of the pod, want the refused one and more", n)
	}
	if r := api.Resizes(); len(r) != 1 {
		t.Errorf("resizes %q, want one", r)
	}
	sc.stopBySIGTERM(t)
	if logs := sc.logs.String(); !strings.Contains(logs, `"msg":"broker CPU boost","state":"failed","reason":"no permission to read the pod: the sidecar's ServiceAccount needs get on pods`) {
		t.Errorf("logs lack the failed read:\n%s", logs)
	}
}

// Not in a pod (no KUBERNETES_SERVICE_HOST): the boost is failed from the start, reported; the
// sidecar warms and serves as without it.
func TestServeCPUBoostWithoutAnAPIServer(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	addr := freeAddr(t)
	env := []string{"WARMUP_BROKER_URL=" + b.URL(), "WARMUP_CONTROLLER_URL=" + c.URL(), "WARMUP_LISTEN_ADDR=" + addr,
		"WARMUP_MIN_ITERATIONS=50", "WARMUP_CPU_BOOST_ENABLED=true", "WARMUP_CPU_BOOST_TARGET_LIMIT=2",
		"WARMUP_POD_NAME=pinot-broker-0", "WARMUP_POD_NAMESPACE=pinot", "WARMUP_KUBE_SERVICE_ACCOUNT_DIR=" + t.TempDir()}
	s := &served{cmd: exec.Command(binary(t), "-drain=200ms"), exited: make(chan error, 1), logs: &syncBuf{}}
	for _, kv := range cleanEnv(env...) {
		if !strings.HasPrefix(kv, "KUBERNETES_") {
			s.cmd.Env = append(s.cmd.Env, kv)
		}
	}
	s.cmd.Stderr = s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	waitReady(t, addr, s.logs)
	st, _ := waitBoost(t, addr, "failed", s.logs)
	if !strings.Contains(st.Boost.Reason, "cannot reach the Kubernetes API: KUBERNETES_SERVICE_HOST") {
		t.Errorf("reason %q", st.Boost.Reason)
	}
	s.stopBySIGTERM(t)
}

// The boost on without the pod's identity is a bad configuration: exit 2 naming the variable.
func TestCPUBoostWithoutThePodNameExitsTwo(t *testing.T) {
	cmd := exec.Command(binary(t), "serve")
	cmd.Env = cleanEnv("WARMUP_TABLES=t", "WARMUP_CPU_BOOST_ENABLED=true", "WARMUP_CPU_BOOST_TARGET_LIMIT=2", "WARMUP_POD_NAMESPACE=pinot")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "WARMUP_POD_NAME is empty") {
		t.Errorf("err %v, stderr %q: want exit 2 naming WARMUP_POD_NAME", err, stderr.String())
	}
}
