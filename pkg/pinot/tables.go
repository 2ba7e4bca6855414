package pinot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
)

// ErrNoController means no controller URL was configured.
var ErrNoController = errors.New("no controller URL configured")

// Tables lists the cluster's raw table names from the controller, sorted. The
// broker has no such endpoint.
func (c *Client) Tables(ctx context.Context) ([]string, error) {
	if c.controller == nil {
		return nil, ErrNoController
	}
	r, err := c.request(c.controller)
	if err != nil {
		return nil, err
	}
	resp, err := r.SetContext(ctx).Get("/tables")
	if err != nil {
		return nil, fmt.Errorf("listing tables from controller: %w", err)
	}
	switch resp.StatusCode() {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, c.unauthorized("listing tables from controller", resp.StatusCode())
	default:
		return nil, httpError("listing tables from controller", resp)
	}
	var body struct {
		Tables []string `json:"tables"`
	}
	if err := json.Unmarshal(resp.Body(), &body); err != nil {
		return nil, fmt.Errorf("decoding controller table list: %w", err)
	}
	sort.Strings(body.Tables)
	return body.Tables, nil
}
