package main

import (
	"net"
	"strings"
	"testing"
)

// A listen address already in use is a startup failure: exit 3, one line naming
// the address. Not 2 (the configuration is valid) and not 1 (nothing was warmed).
func TestServeListenAddressInUseExitsThree(t *testing.T) {
	binary(t) // built before runBad's clock starts
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	code, stderr := runBad(t, "serve", cleanEnv("WARMUP_BROKER_URL=http://127.0.0.1:1", "WARMUP_TABLES=t", "WARMUP_LISTEN_ADDR="+addr))
	if code != 3 || !strings.Contains(stderr, addr) {
		t.Fatalf("exit %d, stderr %q; want 3 naming %s", code, tailStr(stderr, 500), addr)
	}
}

// A bad flag of serve is bad configuration: exit 2 before anything starts.
func TestServeBadDrainExitsTwo(t *testing.T) {
	binary(t)
	for _, arg := range []string{"-drain=soon", "-drain=-1s"} {
		code, stderr := runBad(t, "serve", cleanEnv("WARMUP_BROKER_URL=http://127.0.0.1:1", "WARMUP_TABLES=t", "WARMUP_LISTEN_ADDR=127.0.0.1:0"), arg)
		if code != 2 || !strings.Contains(stderr, "drain") {
			t.Errorf("serve %s: exit %d, stderr %q; want 2 naming -drain", arg, code, tailStr(stderr, 500))
		}
	}
}
