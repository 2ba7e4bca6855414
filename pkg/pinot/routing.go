package pinot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// ErrNoRouting means this broker has no routing for the table (HTTP 404): it is not
// served by this broker's tenant, or not built yet.
var ErrNoRouting = errors.New("broker has no routing for table")

// RoutingTable is tableNameWithType → server instance id → segments.
type RoutingTable map[string]map[string][]string

// RoutingTable asks the broker which servers it routes table to. A raw name of a
// hybrid table answers both legs.
func (c *Client) RoutingTable(ctx context.Context, table string) (RoutingTable, error) {
	r, err := c.request(c.broker)
	if err != nil {
		return nil, err
	}
	resp, err := r.SetContext(ctx).Get("/debug/routingTable/" + pathEscape(table))
	if err != nil {
		return nil, fmt.Errorf("getting routing table of %q: %w", table, err)
	}
	switch resp.StatusCode() {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, fmt.Errorf("routing table of %q: %w", table, ErrNoRouting)
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, &UnauthorizedError{What: "getting routing table of " + table, Status: resp.StatusCode()}
	default:
		return nil, c.redactErr(httpError(fmt.Sprintf("getting routing table of %q", table), resp.StatusCode(), resp.Body()))
	}
	var rt RoutingTable
	if err := json.Unmarshal(resp.Body(), &rt); err != nil {
		return nil, fmt.Errorf("decoding routing table of %q: %w", table, err)
	}
	return rt, nil
}

// UnauthorizedError is a 401/403 from Pinot: the credential is missing or rejected.
type UnauthorizedError struct {
	What   string
	Status int
}

func (e *UnauthorizedError) Error() string {
	if e.Status == http.StatusUnauthorized {
		return fmt.Sprintf("%s: HTTP 401: no or wrong credentials (set WARMUP_AUTH_HEADER_FILE to a file holding the Authorization header value)", e.What)
	}
	return fmt.Sprintf("%s: HTTP %d: the credential in WARMUP_AUTH_HEADER_FILE is not allowed this", e.What, e.Status)
}
