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
	// OK: HTTP 200, the body parsed, no exceptions, every queried server responded.
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
// an unbounded number of connections and a large idle pool. It reuses pkg/pinot's
// response type so the two read Pinot's JSON the same way.
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

// ParseAnswer classifies a broker's answer the way the sidecar counts a probe success.
func ParseAnswer(status int, raw []byte) Answer {
	if status != http.StatusOK {
		return Answer{TimeUsedMs: -1, Err: fmt.Sprintf("HTTP %d: %s", status, firstLine(raw))}
	}
	var r pinot.BrokerResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return Answer{TimeUsedMs: -1, Err: fmt.Sprintf("unparsable answer: %v", err)}
	}
	a := Answer{TimeUsedMs: r.TimeUsedMs}
	switch {
	case len(r.Exceptions) > 0:
		a.Err = fmt.Sprintf("pinot error %d: %s", r.Exceptions[0].ErrorCode, firstLine([]byte(r.Exceptions[0].Message)))
	case r.NumServersResponded != r.NumServersQueried:
		a.Err = fmt.Sprintf("partial answer: %d of %d servers responded", r.NumServersResponded, r.NumServersQueried)
	default:
		a.OK = true
	}
	return a
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

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
