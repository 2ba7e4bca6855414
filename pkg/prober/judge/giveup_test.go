package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// The give-up rule as a table: which failures count, and when a query is given up.
func TestGiveUpRule(t *testing.T) {
	exec := pinot.Result{Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 200, Message: "error 200: boom"}
	timeout := pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
	for _, c := range []struct {
		name    string
		answers []pinot.Result
		timed   bool
		gap     time.Duration // between answers
		want    string        // "" kept
	}{
		{"three execution errors", []pinot.Result{exec, exec, exec}, false, 10 * time.Millisecond, "no success in 3 probes (last: error 200: boom)"},
		{"two execution errors, early", []pinot.Result{exec, exec}, false, 10 * time.Millisecond, ""},
		{"two timeouts over a third of the budget", []pinot.Result{timeout, timeout}, true, 2 * time.Second, "no success in 2 probes over 4s, a third of the budget (last: probe timed out)"},
		{"a success keeps it for good", []pinot.Result{exec, {Class: pinot.Success, HTTPStatus: 200}, exec, exec, exec}, false, time.Millisecond, ""},
		{"segments unavailable (a starting cluster)", []pinot.Result{{Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 305}, {Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 305}, {Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 305}}, false, time.Millisecond, ""},
		{"no routing yet", []pinot.Result{{Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 410}, {Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 410}, {Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 410}}, false, time.Millisecond, ""},
		{"quota refusals", []pinot.Result{{Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 429}, {Class: pinot.Transient, HTTPStatus: 429}, {Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 429}}, false, time.Millisecond, ""},
		{"partial answers", []pinot.Result{{Class: pinot.Transient, HTTPStatus: 200}, {Class: pinot.Transient, HTTPStatus: 200}, {Class: pinot.Transient, HTTPStatus: 200}}, false, time.Millisecond, ""},
		{"broker down", []pinot.Result{{Class: pinot.Transient, Message: "connection refused"}, {Class: pinot.Transient, HTTPStatus: 503}, {Class: pinot.Transient, Message: "connection refused"}}, false, time.Millisecond, ""},
		{"unauthorized", []pinot.Result{{Class: pinot.Unauthorized, HTTPStatus: 401}, {Class: pinot.Unauthorized, HTTPStatus: 401}, {Class: pinot.Unauthorized, HTTPStatus: 401}}, false, time.Millisecond, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTries(12 * time.Second)
			now := time.Unix(0, 0)
			ts.sent("q", now)
			for _, a := range c.answers {
				now = now.Add(c.gap)
				ts.answered("q", a, aboutTheQuery(a, c.timed), now)
			}
			if got := ts.givenUp("q"); got != c.want {
				t.Errorf("given up %q, want %q", got, c.want)
			}
			if c.want != "" && !strings.Contains(c.want, "no success") {
				t.Fatal("bad case")
			}
		})
	}
}
