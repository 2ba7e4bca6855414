package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// secretUnpadded is a Basic credential without its '=' padding, which Pinot
// accepts (it compares tokens with the padding removed): admin:s3cretPassw0rd.
const secretUnpadded = "Basic YWRtaW46czNjcmV0UGFzc3cwcmQ"

// TestSecretUnpaddedBasicAndTailEchoed: a broker or proxy that names the
// password of an unpadded Basic credential, or shows only the credential's
// tail, puts neither into /status nor the logs.
func TestSecretUnpaddedBasicAndTailEchoed(t *testing.T) {
	cred := strings.TrimPrefix(secretUnpadded, "Basic ")
	var n atomic.Int64
	f := newPinotFake(t)
	f.setQuery(func(w http.ResponseWriter, _ *http.Request, _ string) {
		w.WriteHeader(http.StatusInternalServerError)
		if n.Add(1)%2 == 1 {
			fmt.Fprint(w, "login failed for admin with password s3cretPassw0rd")
			return
		}
		fmt.Fprintf(w, "proxy: token ...%s refused", cred[len(cred)-16:])
	})
	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte(secretUnpadded), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startSidecar(t, "WARMUP_BROKER_URL="+f.srv.URL, "WARMUP_TABLES=orders", "WARMUP_AUTH_HEADER_FILE="+file, "WARMUP_BUDGET=1s")
	s.waitFor(t, 5*time.Second, "/readyz 200", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
	_, status := httpGet(s.url("/status"))
	_ = s.stop(3 * time.Second)
	logs := s.logs.String()
	for _, want := range []string{"login failed for admin with password [REDACTED]", "proxy: token ...[REDACTED] refused"} {
		if !strings.Contains(logs, want) {
			t.Errorf("no probe failure shows %q (the test shows nothing):\n%s", want, tailStr(logs, 2000))
		}
	}
	for where, text := range map[string]string{"/status": status, "logs": logs} {
		for _, secret := range []string{cred, "s3cretPassw0rd"} {
			if p := leaked(text, secret); p != "" {
				t.Errorf("%s carries %q, a piece of the credential:\n%s", where, p, tailStr(text, 2000))
			}
		}
	}
}
