package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

const pollInterval = 200 * time.Millisecond

// waitFor polls check until it succeeds, the process dies, ctx ends or timeout passes. Failures
// quote the process log's tail: a JVM's reason for not coming up is only ever in its log.
func waitFor(ctx context.Context, p *proc.Proc, what string, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if p != nil && p.Exited() {
			return fmt.Errorf("%s: %s died while starting (%v); last log lines:\n%s", what, p.Name, p.ExitError(), p.Tail(40))
		}
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			err := fmt.Errorf("%s: not ready after %s (last check: %v)", what, timeout, last)
			if p != nil {
				err = fmt.Errorf("%w; last lines of %s:\n%s", err, p.LogPath(), p.Tail(40))
			}
			return err
		case <-time.After(pollInterval):
		}
	}
}

// httpOK is a check: GET url must answer 200.
func httpOK(client *http.Client, url string) func(context.Context) error {
	return func(ctx context.Context) error {
		status, body, err := get(ctx, client, url, nil)
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("GET %s: %d %s", url, status, strings.TrimSpace(string(body)))
		}
		return nil
	}
}

// tcpOpen is a check: something accepts connections on addr (ZooKeeper has no HTTP health).
func tcpOpen(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return conn.Close()
	}
}

// get performs one GET with optional headers and returns status and body.
func get(ctx context.Context, client *http.Client, url string, header http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, body, fmt.Errorf("GET %s: read body: %w", url, err)
	}
	return resp.StatusCode, body, nil
}

var errStopped = errors.New("cluster stopped")
