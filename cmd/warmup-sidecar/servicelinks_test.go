package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// serviceLinks is what the kubelet gives every pod of a namespace holding a
// Service named warmup-sidecar with a ClusterIP and port 9095 named http
// (enableServiceLinks, the default).
var serviceLinks = []string{
	"WARMUP_SIDECAR_SERVICE_HOST=10.96.12.7", "WARMUP_SIDECAR_SERVICE_PORT=9095", "WARMUP_SIDECAR_SERVICE_PORT_HTTP=9095",
	"WARMUP_SIDECAR_PORT=tcp://10.96.12.7:9095", "WARMUP_SIDECAR_PORT_9095_TCP=tcp://10.96.12.7:9095",
	"WARMUP_SIDECAR_PORT_9095_TCP_PROTO=tcp", "WARMUP_SIDECAR_PORT_9095_TCP_PORT=9095", "WARMUP_SIDECAR_PORT_9095_TCP_ADDR=10.96.12.7",
}

// A Service's link variables are no settings: the sidecar starts, says at
// debug that it ignores them, and the pod becomes Ready on the run's evidence
// (fail-closed). A typo beside them is still exit 2 naming it.
func TestServiceLinkVariablesDoNotStopTheSidecar(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	env := append([]string{"WARMUP_BROKER_URL=" + b.URL(), "WARMUP_CONTROLLER_URL=" + c.URL(),
		"WARMUP_FAIL_CLOSED=true", "WARMUP_BUDGET=60s", "WARMUP_LOG_LEVEL=debug"}, serviceLinks...)
	addr, logs := serveUntilReady(t, env...)
	if st := status(t, addr); st.Outcome != "warm" || !strings.Contains(st.ExitReason, "latency flat") {
		t.Errorf("outcome %q (%s), want warm on the evidence", st.Outcome, st.ExitReason)
	}
	for _, kv := range serviceLinks {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.Contains(logs.String(), `"msg":"ignoring a Kubernetes service-link variable (a Service's address, not a setting)","variable":"`+name+`"`) {
			t.Errorf("no debug line for %s", name)
		}
	}

	cmd := exec.Command(binary(t), "plan")
	cmd.Env = cleanEnv(append(env, "WARMUP_BUGDET=30s")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "WARMUP_BUGDET: unknown variable") {
		t.Errorf("a typo beside service links: %v, %q; want exit 2 naming WARMUP_BUGDET alone", err, stderr.String())
	}
	if strings.Contains(strings.SplitN(stderr.String(), "expected one of", 2)[0], "WARMUP_SIDECAR") {
		t.Errorf("the error blames the service links too: %q", stderr.String())
	}
}
