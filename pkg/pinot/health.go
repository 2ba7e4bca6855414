package pinot

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Health is what the broker's /health said.
type Health struct {
	// OK is true only for HTTP 200 (ServiceStatus GOOD).
	OK bool
	// Status is the HTTP status.
	Status int
	// Body is the answer as one short line (e.g. "Pinot broker status is STARTING").
	Body string
}

// Health asks the broker's /health. An error means no HTTP answer at all
// (refused, reset, timeout); what that says is the caller's to judge: a
// refused connection is evidence the broker is going or gone, a timeout only
// that it is slow or loaded. /health needs no auth, so none is sent.
func (c *Client) Health(ctx context.Context) (Health, error) {
	if c.broker == nil {
		return Health{}, fmt.Errorf("checking broker health: %w", ErrNoBroker)
	}
	resp, err := c.broker.R().SetContext(ctx).Get("/health")
	if err != nil {
		return Health{}, fmt.Errorf("checking broker health: %w", err)
	}
	return Health{
		OK:     resp.StatusCode() == http.StatusOK,
		Status: resp.StatusCode(),
		Body:   answerText(resp), // no credential is sent here: nothing to mask
	}, nil
}

// ShuttingDown: the broker answered that it is draining for a shutdown (503,
// "Pinot broker status is SHUTTING_DOWN"; docs/pinot-facts.md). Its process is
// going: it still serves queries for pinot.broker.delayShutdownTimeMs, then exits.
func (h Health) ShuttingDown() bool {
	return h.Status == http.StatusServiceUnavailable && strings.Contains(h.Body, "SHUTTING_DOWN")
}
