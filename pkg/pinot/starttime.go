package pinot

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode"
)

// StartTime asks the broker when its process started: GET /start-time (Pinot
// 1.x answers an ISO instant as text). A different value from one broker URL
// means the broker restarted, whatever /health said in between. "" with no error
// means the broker has no such endpoint (404: Pinot 0.x): nothing is known.
// Auth applies, as on every broker path but /health.
func (c *Client) StartTime(ctx context.Context) (string, error) {
	r, err := c.request(c.broker)
	if err != nil {
		return "", err
	}
	resp, err := r.SetContext(ctx).Get("/start-time")
	if err != nil {
		return "", fmt.Errorf("getting broker start time: %w", err)
	}
	switch resp.StatusCode() {
	case http.StatusOK:
	case http.StatusNotFound:
		return "", nil
	case http.StatusUnauthorized, http.StatusForbidden:
		return "", &UnauthorizedError{What: "getting broker start time", Status: resp.StatusCode()}
	default:
		return "", httpError("getting broker start time", resp)
	}
	v := strings.TrimSpace(string(resp.Body()))
	// An answer that spells the credential (a proxy echoing it) is no instant,
	// and would reach the restart log line whole.
	if !plausibleInstant(v) || answerRedactor(resp).spells(v) {
		return "", fmt.Errorf("getting broker start time: unexpected answer %q: expected an instant such as 2026-12-01T10:00:00Z", answerText(resp))
	}
	return v, nil
}

// plausibleInstant accepts one short token of printable characters: a proxy's
// HTML page or an empty body is not a start time to compare.
func plausibleInstant(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '<' {
			return false
		}
	}
	return true
}
