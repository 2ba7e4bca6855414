package coldstart

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Answer is what one query got from the broker, before timing is applied.
type Answer struct {
	// OK: the sidecar's classifier calls it a success (pinot.Classify).
	OK bool
	// TimeUsedMs is the broker's own timeUsedMs; -1 when there was no parsable answer.
	TimeUsedMs int64
	// Err says what went wrong when !OK (HTTP status, Pinot error code, transport error).
	Err string
}

// SendFunc runs one query. ctx carries the client timeout: a SendFunc must return
// promptly once ctx is done.
type SendFunc func(ctx context.Context, q Query) Answer

// BrokerClient sends queries to a Pinot broker's POST /query/sql.
//
// It is plain net/http rather than pkg/pinot: a load generator must add as little as
// possible per request and must never cap its own concurrency, so the transport keeps
// an unbounded number of connections and a large idle pool. It judges answers with
// pkg/pinot's classifier so the two count successes the same way.
type BrokerClient struct {
	url    string
	client *http.Client
	header http.Header
}

// NewBrokerClient talks to base (e.g. http://127.0.0.1:8099). header (may be nil) is sent
// with every query, e.g. Authorization. Make a new client per broker (re)start: a pooled
// connection to a killed broker would turn the first queries into errors.
func NewBrokerClient(base string, header http.Header) *BrokerClient {
	tr := &http.Transport{
		Proxy:               nil, // loopback or in-cluster: never through a proxy
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0, // no limit
		MaxIdleConnsPerHost: 4096,
		MaxConnsPerHost:     0, // open loop: never queue on the client side
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &BrokerClient{url: strings.TrimRight(base, "/") + "/query/sql", client: &http.Client{Transport: tr}, header: header}
}

// Close drops idle connections.
func (b *BrokerClient) Close() { b.client.CloseIdleConnections() }

type sqlBody struct {
	SQL string `json:"sql"`
}

// Send is a SendFunc.
func (b *BrokerClient) Send(ctx context.Context, q Query) Answer {
	body, err := json.Marshal(sqlBody{SQL: q.SQL})
	if err != nil {
		return Answer{TimeUsedMs: -1, Err: fmt.Sprintf("encoding query: %v", err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(body))
	if err != nil {
		return Answer{TimeUsedMs: -1, Err: fmt.Sprintf("building request: %v", err)}
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.client.Do(req)
	if err != nil {
		return Answer{TimeUsedMs: -1, Err: transportError(err)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{TimeUsedMs: -1, Err: transportError(err)}
	}
	return ParseAnswer(resp.StatusCode, raw)
}

// ParseAnswer judges a broker's answer with the sidecar's own classifier (pinot.Classify): the
// benchmark counts as a success exactly what the sidecar counts as a successful probe.
func ParseAnswer(status int, raw []byte) Answer {
	r := pinot.Classify(status, raw)
	if r.Class == pinot.Success {
		return Answer{OK: true, TimeUsedMs: r.TimeUsedMs}
	}
	return Answer{TimeUsedMs: reportedTimeUsed(status, raw), Err: r.Message}
}

// reportedTimeUsed is the timeUsedMs a failed answer still carries (a Pinot error, a partial
// answer), kept in the trace; -1 when the broker sent no JSON object.
func reportedTimeUsed(status int, raw []byte) int64 {
	var v *struct {
		TimeUsedMs int64 `json:"timeUsedMs"`
	}
	if status != http.StatusOK || json.Unmarshal(raw, &v) != nil || v == nil {
		return -1
	}
	return v.TimeUsedMs
}

func transportError(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "client timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return err.Error()
}
