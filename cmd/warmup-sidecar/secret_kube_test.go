package main

import (
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakekube"
)

// TestServeCPUBoostRefusalEchoesTokenPieces: the API server's (or a proxy's)
// refusal quotes the ServiceAccount token cut short inside it, and then only
// its tail: /status and the logs keep no 8 characters of it.
func TestServeCPUBoostRefusalEchoesTokenPieces(t *testing.T) {
	api, err := fakekube.New(boostedPod(), saToken)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	api.RefuseResizes(403, "Forbidden", "token "+saToken[:60]+"… cannot patch resource \"pods/resize\"; seen before as ..."+saToken[len(saToken)-16:])
	f := newPinotFake(t)
	addr := freeAddr(t)
	sc := serveBinary(t, boostEnv(api, "WARMUP_BROKER_URL="+f.srv.URL, "WARMUP_TABLES=orders", "WARMUP_LISTEN_ADDR="+addr,
		"WARMUP_MIN_ITERATIONS=50", "WARMUP_CPU_BOOST_SETTLE=0s")...)
	waitReady(t, addr, sc.logs)
	st, body := waitBoost(t, addr, "failed", sc.logs)
	sc.stopBySIGTERM(t)
	if !strings.Contains(st.Boost.Reason, "token [REDACTED]… cannot patch") || !strings.Contains(st.Boost.Reason, "seen before as ...[REDACTED]") {
		t.Errorf("reason %q, want the refusal quoted with the token's pieces masked", st.Boost.Reason)
	}
	for where, text := range map[string]string{"logs": sc.logs.String(), "/status": body} {
		if p := leaked(text, saToken); p != "" {
			t.Errorf("%s carries %q, a piece of the ServiceAccount token", where, p)
		}
	}
}
