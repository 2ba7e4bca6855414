package pinot

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// Options configures a Client. HTTPClient is injected so tests and callers own
// transports and timeouts; Auth supplies the Authorization header value per request
// (nil: none), so a rotated Secret takes effect without a restart.
type Options struct {
	BrokerURL     string
	ControllerURL string
	HTTPClient    *http.Client
	Auth          AuthSource
	UserAgent     string
}

// Client talks to one broker and, optionally, one controller.
type Client struct {
	broker     *resty.Client
	controller *resty.Client
	auth       AuthSource
}

// New builds a Client. It never dials; bad URLs are rejected by config first.
func New(o Options) *Client {
	hc := o.HTTPClient
	if hc == nil {
		hc = DefaultHTTPClient()
	}
	ua := o.UserAgent
	if ua == "" {
		ua = "warmup-sidecar"
	}
	mk := func(base string) *resty.Client {
		if base == "" {
			return nil
		}
		// resty retries nothing by default; the prober owns retry policy.
		return resty.NewWithClient(hc).
			SetBaseURL(strings.TrimRight(base, "/")).
			SetResponseBodyLimit(MaxAnswerBytes).
			SetHeader("User-Agent", ua)
	}
	return &Client{broker: mk(o.BrokerURL), controller: mk(o.ControllerURL), auth: o.Auth}
}

// MaxAnswerBytes caps every answer read from Pinot: a probe's answer is a few KB,
// and a broker or proxy streaming without end must not grow the sidecar. A larger
// answer is a failed probe.
const MaxAnswerBytes = 1 << 20

// DefaultHTTPClient keeps enough idle connections per host for 64 probes in flight:
// Go's default of 2 would make every concurrent probe pay a new TCP handshake.
func DefaultHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 256
	tr.MaxIdleConnsPerHost = 128
	tr.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: tr}
}

func (c *Client) request(rc *resty.Client) (*resty.Request, error) {
	r := rc.R()
	if c.auth != nil {
		v, err := c.auth.Header()
		if err != nil {
			return nil, err
		}
		if v != "" {
			r.SetHeader("Authorization", v)
		}
	}
	return r, nil
}

// pathEscape escapes a table name for a URL path segment.
func pathEscape(s string) string { return url.PathEscape(s) }

// httpError describes a non-2xx answer without echoing request headers.
func httpError(what string, status int, body []byte) error {
	return fmt.Errorf("%s: HTTP %d: %s", what, status, snippet(body))
}

// snippetRunes caps how much of an answer goes into an error or log line.
const snippetRunes = 200

// snippet keeps error text to one short, valid UTF-8 line: brokers and proxies can
// answer HTML pages, stack traces or binary garbage. The cut falls on a rune
// boundary, and an empty body says so instead of leaving a dangling "HTTP 503: ".
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if s == "" {
		return "(empty body)"
	}
	n := 0
	for i := range s {
		if n == snippetRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
