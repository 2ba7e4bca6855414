package pinot

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// QueryQuota asks the broker for its share of a typed table's QPS quota
// (GET /debug/tables/queryQuota/{t}, Pinot ≥ 1.3; docs/pinot-facts.md). A raw
// name always answers "no quota": ask per leg ("t_OFFLINE").
//
// ok is false when no quota applies: "0.0", or 404 from a broker without the
// endpoint. err is set for anything else that cannot be read (401/403, 5xx, an
// unparsable answer, no answer).
func (c *Client) QueryQuota(ctx context.Context, table string) (qps float64, ok bool, err error) {
	r, err := c.brokerRequest()
	if err != nil {
		return 0, false, err
	}
	resp, err := r.SetContext(ctx).Get("/debug/tables/queryQuota/" + pathEscape(table))
	if err != nil {
		return 0, false, fmt.Errorf("getting query quota of %q from broker: %w", table, err)
	}
	switch resp.StatusCode() {
	case http.StatusOK:
	case http.StatusNotFound:
		return 0, false, nil
	case http.StatusUnauthorized, http.StatusForbidden:
		return 0, false, c.unauthorized("getting query quota of "+table+" from broker", resp.StatusCode())
	default:
		return 0, false, httpError(fmt.Sprintf("getting query quota of %q from broker", table), resp)
	}
	qps, ok, err = parseQueryQuota(resp.Body(), answerRedactor(resp))
	if err != nil {
		return 0, false, fmt.Errorf("query quota of %q: %w", table, err)
	}
	return qps, ok, nil
}

// ParseQueryQuota reads the body of /debug/tables/queryQuota/{t}: one Java double.
// Zero, negative and non-finite values mean no usable quota (ok false).
func ParseQueryQuota(body []byte) (qps float64, ok bool, err error) {
	return parseQueryQuota(body, redactor{})
}

// parseQueryQuota is ParseQueryQuota quoting an unparsable answer through red.
func parseQueryQuota(body []byte, red redactor) (qps float64, ok bool, err error) {
	s := strings.TrimSpace(string(body))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, fmt.Errorf("unparsable answer %q: expected a number such as 25.0", red.snippet(body))
	}
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, nil
	}
	return v, true, nil
}
