package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// component is one control plane process: started, then waited for on its health endpoint.
type component struct{ p *proc.Proc }

// start runs argv and waits until health answers 200, the process exits, or ctx ends. On
// failure the process is stopped and the error quotes the end of its log.
func startComponent(ctx context.Context, name string, argv []string, log, health string, client *http.Client) (*component, error) {
	p, err := proc.Start(proc.Spec{Name: name, Argv: argv, Log: log})
	if err != nil {
		return nil, err
	}
	c := &component{p: p}
	for {
		if req, err := http.NewRequestWithContext(ctx, http.MethodGet, health, nil); err == nil {
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return c, nil
				}
			}
		}
		select {
		case <-p.Done():
			code, why := p.ExitCode()
			return nil, fmt.Errorf("%s exited (%d, %s) before %s answered 200:\n%s", name, code, why, health, p.Tail(30))
		case <-ctx.Done():
			p.Stop(5 * time.Second)
			return nil, fmt.Errorf("%s: %s did not answer 200: %w\n%s", name, health, ctx.Err(), p.Tail(30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *component) stop() { c.p.Stop(10 * time.Second) }

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func loopbackURL(scheme string, port int) string {
	return scheme + "://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// tlsClient trusts caFile (or, with caFile empty, the component's self-signed certificate: the
// controller manager and scheduler serve only health here).
func tlsClient(caFile string) (*http.Client, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		cfg.InsecureSkipVerify = true //nolint:gosec // loopback health checks of self-signed components
	} else {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("read CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", caFile)
		}
		cfg.RootCAs = pool
	}
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}, nil
}
