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
	r, err := c.brokerRequest()
	if err != nil {
		return nil, err
	}
	resp, err := r.SetContext(ctx).Get("/debug/routingTable/" + pathEscape(table))
	if err != nil {
		return nil, fmt.Errorf("getting routing table of %q from broker: %w", table, err)
	}
	switch resp.StatusCode() {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, fmt.Errorf("routing table of %q: %w", table, ErrNoRouting)
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, c.unauthorized("getting routing table of "+table+" from broker", resp.StatusCode())
	default:
		return nil, httpError(fmt.Sprintf("getting routing table of %q from broker", table), resp)
	}
	var rt RoutingTable
	if err := json.Unmarshal(resp.Body(), &rt); err != nil {
		return nil, fmt.Errorf("decoding routing table of %q from broker: %w", table, err)
	}
	return rt, nil
}
