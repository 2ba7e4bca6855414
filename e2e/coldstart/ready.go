package coldstart

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ReadyPoll is how often WaitReady asks: the Ready instant is known to within it. The
// kubelet's own probe period is seconds; a finer poll only makes the load start closer to
// the instant the pod could first have turned Ready, the harshest case for the broker.
const ReadyPoll = 20 * time.Millisecond

// WaitReady polls url (GET) until it answers 200 and returns that instant. With
// untilDownFirst it first waits for a non-200 answer or a refused connection, so a
// caller that restarts the broker right after calling it never mistakes the old broker's
// 200 for the new one's.
func WaitReady(ctx context.Context, url string, untilDownFirst bool) (time.Time, error) {
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	defer client.CloseIdleConnections()
	if untilDownFirst {
		if err := pollUntil(ctx, client, url, false); err != nil {
			return time.Time{}, fmt.Errorf("waiting for %s to go down: %w", url, err)
		}
	}
	if err := pollUntil(ctx, client, url, true); err != nil {
		return time.Time{}, fmt.Errorf("waiting for %s to answer 200: %w", url, err)
	}
	return time.Now(), nil
}

func pollUntil(ctx context.Context, client *http.Client, url string, want200 bool) error {
	t := time.NewTicker(ReadyPoll)
	defer t.Stop()
	for {
		if ok := get200(ctx, client, url); ok == want200 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func get200(ctx context.Context, client *http.Client, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
