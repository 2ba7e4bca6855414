//go:build e2e

package scenarios

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

const (
	authUser     = "warmup"
	authPassword = "s3cr3t-warmup-passw0rd"
)

func basicAuthConf() []string {
	return []string{
		"pinot.broker.access.control.class=org.apache.pinot.broker.broker.BasicAuthAccessControlFactory",
		"pinot.broker.access.control.principals=" + authUser,
		"pinot.broker.access.control.principals." + authUser + ".password=" + authPassword,
	}
}

// Scenario 9: Basic auth on the broker. With the right header file the sidecar
// warms; without it the log says 401 plainly and the gate still opens by the
// budget. The secret never reaches the logs or /status.
func TestBasicAuthBroker(t *testing.T) {
	coldBroker(t, cluster.WithBrokerExtraConf(basicAuthConf()...))
	t.Cleanup(func() { coldBroker(t, cluster.WithBrokerExtraConf()); healthyBroker(t) })
	healthyBroker(t)

	header := "Basic " + base64.StdEncoding.EncodeToString([]byte(authUser+":"+authPassword))
	file := filepath.Join(t.TempDir(), "authorization")
	if err := os.WriteFile(file, []byte(header+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"WARMUP_TABLES=" + cluster.TableBoth, "WARMUP_CONTROLLER_URL="}

	t.Run("with credentials", func(t *testing.T) {
		p := startSidecar(t, env(append(base, "WARMUP_AUTH_HEADER_FILE="+file, exitFloor, "WARMUP_MIN_ITERATIONS=200", "WARMUP_BUDGET=60s")...))
		st := waitOutcome(t, p, 90*time.Second)
		if st.Outcome != "warm" {
			t.Fatalf("outcome %q: %+v", st.Outcome, st)
		}
		_, status, _ := p.Get("/status")
		for _, where := range []string{p.Logs(), status} {
			if strings.Contains(where, authPassword) || strings.Contains(where, header[6:]) {
				t.Fatal("the credential leaked into logs or /status")
			}
		}
	})

	t.Run("without credentials", func(t *testing.T) {
		p := startSidecar(t, env(append(base, "WARMUP_MIN_ITERATIONS=200", "WARMUP_BUDGET=5s")...))
		start := time.Now()
		st := waitOutcome(t, p, 15*time.Second)
		if st.Outcome != "budget_expired" {
			t.Fatalf("outcome %q", st.Outcome)
		}
		waitReady(t, p, 3*time.Second)
		if took := time.Since(start); took > 7*time.Second {
			t.Fatalf("gate opened after %s, want by budget 5s (+ slack)", took)
		}
		// 1.x answers HTTP 401; 0.11 answers HTTP 200 with error 180 and a null
		// message. Either way the log must say what that means.
		refusal := "HTTP 401"
		if !pinot.AtLeast1x() {
			refusal = "error 180"
		}
		logs := p.Logs()
		line := firstLine(logs, "broker refused the probe credentials")
		if !strings.Contains(line, refusal) || !strings.Contains(line, "WARMUP_AUTH_HEADER_FILE") {
			t.Fatalf("logs do not say plainly that the credentials were refused:\n%s", logs)
		}
		if n := strings.Count(logs, "broker refused the probe credentials"); n != 1 {
			t.Errorf("the refusal was logged %d times, want once", n)
		}
		t.Logf("without credentials the sidecar said: %s", line)
	})
}

func firstLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
