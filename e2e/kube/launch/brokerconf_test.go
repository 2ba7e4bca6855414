package launch

import (
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// Every *port key, in each properties form, gets the pod's host port; the host is pinned once;
// the rest stays as written.
func TestTranslateBrokerConf(t *testing.T) {
	pod, _ := podnet.New(24000, 10).Pod("ns", "p")
	in := strings.Join([]string{
		"# ports",
		"pinot.broker.client.queryPort=8099",
		"pinot.broker.client.access.protocols.warmup.port : 8098",
		"  pinot.query.runner.port 7732",
		"pinot.broker.hostname=pinot-broker-0.pinot-broker-headless",
		"pinot.broker.client.access.protocols.warmup.host=127.0.0.1",
		"pinot.broker.timeoutMs=10000",
		`pinot.broker.list=a,\`,
		"  port=1",
		"",
	}, "\n")
	got, err := translateBrokerConf(in, pod)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"# ports",
		"pinot.broker.client.queryPort=24000",
		"pinot.broker.client.access.protocols.warmup.port=24001",
		"pinot.query.runner.port=24002",
		"pinot.broker.client.access.protocols.warmup.host=127.0.0.1",
		"pinot.broker.timeoutMs=10000",
		`pinot.broker.list=a,\`,
		"  port=1", // a continuation line, not a key
		"pinot.broker.hostname=127.0.0.1",
		"",
	}, "\n")
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTranslateBrokerConfRefusesAPortItCannotRead(t *testing.T) {
	pod, _ := podnet.New(24000, 10).Pod("ns", "p")
	_, err := translateBrokerConf("a=1\npinot.broker.client.queryPort=${PORT}\n", pod)
	if err == nil || !strings.Contains(err.Error(), `line 2: pinot.broker.client.queryPort="${PORT}": want a port number`) {
		t.Errorf("error %v", err)
	}
}
