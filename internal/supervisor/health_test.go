package supervisor

import (
	"context"
	"errors"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// The gate's health check says ready on a /health 200, passes a failed call on as
// an error, and otherwise gives the broker's answer as the reason /readyz shows.
func TestHealthCheckGivesTheBrokersAnswerAsTheReason(t *testing.T) {
	refused := errors.New("connection refused")
	for _, c := range []struct {
		name   string
		health pinot.Health
		err    error
		ok     bool
		reason string
	}{
		{"200", pinot.Health{OK: true, Status: 200, Body: "OK"}, nil, true, ""},
		{"503", pinot.Health{Status: 503, Body: "Pinot broker status is STARTING"}, nil, false,
			"broker /health answered HTTP 503: Pinot broker status is STARTING"},
		{"refused", pinot.Health{}, refused, false, ""},
	} {
		check := HealthCheck(func(context.Context) (pinot.Health, error) { return c.health, c.err })
		ok, reason, err := check(context.Background())
		if ok != c.ok || reason != c.reason || !errors.Is(err, c.err) || (c.err == nil && err != nil) {
			t.Errorf("%s: got (%v, %q, %v), want (%v, %q, %v)", c.name, ok, reason, err, c.ok, c.reason, c.err)
		}
	}
}
