package podnet

import "testing"

func TestPodIsStableByName(t *testing.T) {
	n := New(24000, 10)
	a, _ := n.Pod("pinot", "pinot-broker-0")
	b, _ := n.Pod("pinot", "pinot-broker-1")
	again, _ := n.Pod("pinot", "pinot-broker-0")
	if a != again || a.IP == b.IP {
		t.Fatalf("pod-0 %s then %s, pod-1 %s: want the same pod for the same name, another for another", a.IP, again.IP, b.IP)
	}
	pa, _ := a.HostPort(8099)
	pb, _ := b.HostPort(8099)
	if pa == pb || pa != 24000 || pb != 24010 {
		t.Errorf("8099 → %d and %d: want each pod's own block (24000, 24010)", pa, pb)
	}
	if addr, ok := n.Lookup(b.IP, 8099); !ok || addr != "127.0.0.1:24010" {
		t.Errorf("Lookup(%s, 8099) = %q %v", b.IP, addr, ok)
	}
	if _, ok := n.Lookup(b.IP, 9000); ok {
		t.Error("Lookup of an undeclared port: want not found")
	}
}

func TestBlockFull(t *testing.T) {
	p, _ := New(24000, 2).Pod("ns", "p")
	for _, port := range []int32{1, 2} {
		if _, err := p.HostPort(port); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.HostPort(3); err == nil {
		t.Error("a third port in a block of 2: want an error")
	}
}

func TestRewrite(t *testing.T) {
	p, _ := New(24000, 10).Pod("ns", "p")
	p.HostPort(8099)
	p.HostPort(9095)
	for in, want := range map[string]string{
		"http://127.0.0.1:8099":      "http://127.0.0.1:24000",
		"http://localhost:8099/x":    "http://localhost:24000/x",
		":9095":                      ":24001",
		"0.0.0.0:9095":               "0.0.0.0:24001",
		"-Dport=:8099 -x":            "-Dport=:24000 -x",
		"http://pinot-broker:8099":   "http://pinot-broker:8099", // another host: not the pod's
		"http://127.0.0.1:7000":      "http://127.0.0.1:7000",    // not a pod port
		"127.0.0.1:80990":            "127.0.0.1:80990",
		"no address here, just 8099": "no address here, just 8099",
	} {
		if got := p.Rewrite(in); got != want {
			t.Errorf("Rewrite(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocalPorts(t *testing.T) {
	for in, want := range map[string][]int32{
		"http://127.0.0.1:8098": {8098},
		":9095":                 {9095},
		"http://localhost:8008/metrics?x=:8008 :7000": {8008, 7000},
		"http://pinot-controller:9000":                nil, // another host
		"127.0.0.1:0 127.0.0.1:80990":                 nil, // no port / not a pod-local address
	} {
		got := LocalPorts(in)
		if len(got) != len(want) {
			t.Errorf("LocalPorts(%q) = %v, want %v", in, got, want)
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("LocalPorts(%q) = %v, want %v", in, got, want)
			}
		}
	}
}
