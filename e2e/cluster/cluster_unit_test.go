package cluster

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Pure parts of the harness, tested without Java: `go test ./e2e/cluster/` (the real cluster
// needs -tags e2e).

func TestPortsDistinctAndWithinSpan(t *testing.T) {
	a, b := portsFor(DefaultBasePort), portsFor(DefaultBasePort+PortSpan)
	seen := map[int]bool{}
	for _, p := range append(a.all(), b.all()...) {
		if seen[p] {
			t.Fatalf("port %d used twice across two clusters PortSpan apart", p)
		}
		seen[p] = true
	}
	for _, p := range a.all() {
		if p < DefaultBasePort || p >= DefaultBasePort+PortSpan {
			t.Errorf("port %d outside [base, base+PortSpan)", p)
		}
	}
}

func TestSegmentCSVsAreDeterministicAndComplete(t *testing.T) {
	spec := tableSpec{name: "t", rows: 1001, segments: 4, header: benchHeader, row: benchRow}
	read := func() []string {
		paths, err := writeSegmentCSVs(t.TempDir(), spec)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if lines[0] != benchHeader {
				t.Fatalf("%s: header %q", filepath.Base(p), lines[0])
			}
			all = append(all, lines[1:]...)
		}
		return all
	}
	first, second := read(), read()
	if len(first) != spec.rows {
		t.Fatalf("%d rows over all segments, want %d", len(first), spec.rows)
	}
	if strings.Join(first, "\n") != strings.Join(second, "\n") {
		t.Fatal("two generations differ")
	}
	if got := strings.Count(first[0], ","); got != strings.Count(benchHeader, ",") {
		t.Errorf("row %q has %d commas, header has %d", first[0], got, strings.Count(benchHeader, ","))
	}
}

func TestSmallRow(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	smallRow(w, 7)
	smallRow(w, 8)
	w.Flush()
	if buf.String() != "7,c0,3.5\n8,c1,4.0\n" {
		t.Errorf("small rows = %q", buf.String())
	}
}

func TestBrokerConfAppendsExtraLines(t *testing.T) {
	c := &Cluster{name: "X", ports: portsFor(20000)}
	conf := c.brokerConf(0, brokerSettings{extraConf: []string{"a.b=c"}})
	for _, want := range []string{"pinot.cluster.name=X\n", "pinot.zk.server=127.0.0.1:20000\n",
		"pinot.broker.hostname=127.0.0.1\n", "pinot.broker.client.queryPort=20002\n", "a.b=c\n"} {
		if !strings.Contains(conf, want) {
			t.Errorf("broker conf lacks %q:\n%s", want, conf)
		}
	}
	if c.BrokerInstanceID() != "Broker_127.0.0.1_20002" {
		t.Errorf("broker id %s", c.BrokerInstanceID())
	}
}

// Every broker slot has its own query and runner port in its config, its own instance id and role.
func TestBrokerSlotsAreDistinct(t *testing.T) {
	c := &Cluster{name: "X", ports: portsFor(20000)}
	ids, roles := map[string]bool{}, map[string]bool{}
	for i := range MaxBrokers {
		b := c.Broker(i)
		conf := c.brokerConf(i, brokerSettings{})
		for _, want := range []string{fmt.Sprintf("pinot.broker.client.queryPort=%d\n", b.Ports().Query),
			fmt.Sprintf("pinot.query.runner.port=%d\n", b.Ports().Runner)} {
			if !strings.Contains(conf, want) {
				t.Errorf("broker %d conf lacks %q:\n%s", i, want, conf)
			}
		}
		if ids[b.InstanceID()] || roles[b.Role()] {
			t.Errorf("broker %d: id %s or role %s used twice", i, b.InstanceID(), b.Role())
		}
		ids[b.InstanceID()], roles[b.Role()] = true, true
	}
	if c.Broker(1).Role() != "broker2" || c.Broker(0).URL() != "http://127.0.0.1:20002" {
		t.Errorf("slot names: %s, %s", c.Broker(1).Role(), c.Broker(0).URL())
	}
}

func TestOptionsRejectTooManyBrokers(t *testing.T) {
	for _, n := range []int{-1, MaxBrokers + 1} {
		err := Options{Brokers: n}.withDefaults().check()
		if err == nil || !strings.Contains(err.Error(), "Brokers") {
			t.Errorf("Brokers %d: error %v, want one naming Brokers", n, err)
		}
	}
	if err := (Options{}).withDefaults().check(); err != nil {
		t.Errorf("zero options: %v", err)
	}
}

func TestVersionOfLib(t *testing.T) {
	dir := t.TempDir()
	if _, err := versionOfLib(dir); err == nil {
		t.Error("empty lib dir: want an error")
	}
	if err := os.WriteFile(filepath.Join(dir, "pinot-broker-1.5.1.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := versionOfLib(dir); err != nil || v != "1.5.1" {
		t.Errorf("versionOfLib = %q, %v; want 1.5.1", v, err)
	}
}

func TestNiceArgv(t *testing.T) {
	argv := []string{"java", "-Xmx1G"}
	if got, err := niceArgv(0, argv); err != nil || strings.Join(got, " ") != "java -Xmx1G" {
		t.Errorf("nice 0: %q, %v; want argv as it is", got, err)
	}
	if got, err := niceArgv(10, argv); err != nil || strings.Join(got, " ") != "nice -n 10 java -Xmx1G" {
		t.Errorf("nice 10: %q, %v", got, err)
	}
	for _, n := range []int{-1, 20} {
		if _, err := niceArgv(n, argv); err == nil || !strings.Contains(err.Error(), "want 0–19") {
			t.Errorf("nice %d: err %v, want the range named", n, err)
		}
	}
}

// A broker given its own java runs on it; every other role, and a broker told "" again, runs on
// the cluster's.
func TestBrokerJavaIsTheBrokersAlone(t *testing.T) {
	c := &Cluster{work: t.TempDir(), lib: "/lib", opts: Options{JavaBin: "/jdk17/bin/java"}}
	s := brokerSettings{}
	WithBrokerJava("/jdk25/bin/java")(&s)
	for _, tc := range []struct{ role, java, want string }{
		{"broker", s.java, "/jdk25/bin/java"},
		{"server1", "", "/jdk17/bin/java"},
		{"controller", "", "/jdk17/bin/java"},
	} {
		argv, err := c.jvmArgv(tc.role, tc.java, nil, nil, "StartX")
		if err != nil {
			t.Fatal(err)
		}
		if argv[0] != tc.want || argv[len(argv)-1] != "StartX" {
			t.Errorf("%s: argv %q, want it to start with %s", tc.role, argv, tc.want)
		}
	}
	WithBrokerJava("")(&s)
	if s.java != "" {
		t.Errorf("WithBrokerJava(\"\") left %q", s.java)
	}
}
