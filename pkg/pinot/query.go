package pinot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// ProbeIDPrefix starts every probe's clientQueryId, so operators can filter probes
// out of the broker's query log and metrics.
const ProbeIDPrefix = "warmup-sidecar-"

// Query is one probe request.
type Query struct {
	// SQL is sent as the request's "sql", as is.
	SQL string
	// Timeout becomes the query option timeoutMs (≥ 1 ms), so the broker gives up
	// no later than the sidecar does.
	Timeout time.Duration
	// ClientQueryID becomes the query option clientQueryId.
	ClientQueryID string
	// MultiStage runs the query on the multi-stage engine (query option
	// useMultistageEngine=true, Pinot 1.x); the SQL stays as it is.
	MultiStage bool
}

type queryBody struct {
	SQL          string `json:"sql"`
	Trace        bool   `json:"trace"`
	QueryOptions string `json:"queryOptions,omitempty"`
}

// Query runs one probe through the broker's POST /query/sql and classifies it.
func (c *Client) Query(ctx context.Context, q Query) Result {
	res, _ := c.post(ctx, q)
	return res
}

// post runs q and classifies the answer; the body is returned for callers that
// read more than the classifier does (nil when no answer came back).
func (c *Client) post(ctx context.Context, q Query) (Result, []byte) {
	body, err := json.Marshal(queryBody{SQL: q.SQL, QueryOptions: queryOptions(q)})
	if err != nil {
		return Result{Class: Transient, Message: fmt.Sprintf("encoding query: %v", err)}, nil
	}
	r, err := c.brokerRequest()
	if errors.Is(err, ErrNoBroker) {
		return Result{Class: Transient, Message: err.Error()}, nil
	}
	if err != nil {
		// The auth file went missing: the probe cannot be authorised.
		return Result{Class: Unauthorized, Message: err.Error()}, nil
	}
	resp, err := r.SetContext(ctx).
		SetHeader("Content-Type", "application/json").
		SetBody(body).
		Post("/query/sql")
	if err != nil {
		msg := err.Error()
		if errors.Is(err, resty.ErrResponseBodyTooLarge) {
			msg = fmt.Sprintf("answer larger than %d MiB: not read further", MaxAnswerBytes>>20)
		} else if errors.Is(err, context.DeadlineExceeded) {
			msg = "probe timed out"
		} else if errors.Is(err, context.Canceled) {
			msg = "probe cancelled"
		}
		return Result{Class: Transient, Message: msg}, nil
	}
	return classify(resp.StatusCode(), resp.Body(), c.authHint, answerRedactor(resp).withQuery(q.SQL)), resp.Body()
}

func queryOptions(q Query) string {
	var opts []string
	if q.Timeout > 0 {
		opts = append(opts, "timeoutMs="+strconv.FormatInt(max(q.Timeout.Milliseconds(), 1), 10))
	}
	if q.ClientQueryID != "" {
		opts = append(opts, "clientQueryId="+q.ClientQueryID)
	}
	if q.MultiStage {
		opts = append(opts, "useMultistageEngine=true")
	}
	return strings.Join(opts, ";")
}
