package pinot

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// A program using the client names its own setting in every refusal; without a
// hint the messages still say what is needed.
func TestRefusalsCarryTheAuthHint(t *testing.T) {
	const hint = "set --auth-file to a file holding the header"
	deny180, err := os.ReadFile("../../e2e/testdata/broker-responses/pinot-0.11.0/auth-query-no-credentials.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, hint, want string
	}{
		{"with a hint", hint, hint},
		{"without one", "", DefaultAuthHint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := map[string]string{}
			c := newClient(t, Options{BrokerURL: answer(t, http.StatusUnauthorized, ""), ControllerURL: answer(t, http.StatusForbidden, ""), AuthHint: tc.hint})
			_, err := c.RoutingTable(ctx, "t")
			msgs["routing 401"] = errText(err)
			_, _, err = c.QueryQuota(ctx, "t_OFFLINE")
			msgs["quota 401"] = errText(err)
			_, err = c.Tables(ctx)
			msgs["controller 403"] = errText(err)
			msgs["query 401"] = c.Query(ctx, Query{SQL: "SELECT 1"}).Message
			c180 := newClient(t, Options{BrokerURL: answer(t, http.StatusOK, string(deny180)), AuthHint: tc.hint})
			msgs["query error 180"] = c180.Query(ctx, Query{SQL: "SELECT 1"}).Message
			for where, msg := range msgs {
				if !strings.Contains(msg, "("+tc.want+")") {
					t.Errorf("%s: %q does not carry %q", where, msg, tc.want)
				}
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// A client built from zero Options, or a zero Client, fails every call with a
// clear error instead of a nil-pointer panic.
func TestZeroClientFailsPlainly(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]*Client{"New(Options{})": New(Options{}), "&Client{}": {}} {
		t.Run(name, func(t *testing.T) {
			if _, err := c.Health(ctx); !errors.Is(err, ErrNoBroker) {
				t.Errorf("Health: %v, want ErrNoBroker", err)
			}
			if _, err := c.RoutingTable(ctx, "t"); !errors.Is(err, ErrNoBroker) {
				t.Errorf("RoutingTable: %v, want ErrNoBroker", err)
			}
			if _, _, err := c.QueryQuota(ctx, "t_OFFLINE"); !errors.Is(err, ErrNoBroker) {
				t.Errorf("QueryQuota: %v, want ErrNoBroker", err)
			}
			if _, err := c.Tables(ctx); !errors.Is(err, ErrNoController) {
				t.Errorf("Tables: %v, want ErrNoController", err)
			}
			if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Transient || r.Message != ErrNoBroker.Error() {
				t.Errorf("Query: %+v, want a transient failure saying %q", r, ErrNoBroker)
			}
		})
	}
}

// Zero Options other than the broker: the default HTTP client, no auth header.
func TestZeroOptionsBesidesTheBrokerWork(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	t.Cleanup(b.Close)
	c := New(Options{BrokerURL: b.URL()})
	t.Cleanup(c.broker.GetClient().CloseIdleConnections) // the default client's, so goleak sees no reader left
	if r := c.Query(context.Background(), Query{SQL: "SELECT 1"}); r.Class != Success {
		t.Fatalf("Query: %+v", r)
	}
	if got := b.LastAuth(); got != "" {
		t.Errorf("an Authorization header was sent without Auth: %q", got)
	}
}
