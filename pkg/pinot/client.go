package pinot

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// Options configures a Client. Every field but BrokerURL may be left zero.
type Options struct {
	// BrokerURL is the broker's base URL, such as http://127.0.0.1:8099; empty:
	// every broker call fails with ErrNoBroker.
	BrokerURL string
	// ControllerURL is the controller's base URL; empty: Tables answers ErrNoController.
	ControllerURL string
	// HTTPClient is injected so callers own transports and timeouts; nil:
	// DefaultHTTPClient().
	HTTPClient *http.Client
	// Auth supplies the Authorization header value per request, so a rotated
	// credential takes effect without a restart; nil: none is sent.
	Auth AuthSource
	// AuthHint tells an operator, in messages about missing or refused
	// credentials, how to supply them; empty: DefaultAuthHint.
	AuthHint string
	// UserAgent is sent with every request; empty: "warmup-sidecar".
	UserAgent string
}

// Client talks to one broker and, optionally, one controller.
type Client struct {
	broker     *resty.Client
	controller *resty.Client
	auth       AuthSource
	authHint   string
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
	return &Client{broker: mk(o.BrokerURL), controller: mk(o.ControllerURL), auth: o.Auth, authHint: o.AuthHint}
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

// ErrNoBroker means no broker URL was configured: every broker call fails with it.
var ErrNoBroker = errors.New("no broker URL configured")

// brokerRequest starts a request to the broker, with auth.
func (c *Client) brokerRequest() (*resty.Request, error) {
	if c.broker == nil {
		return nil, ErrNoBroker
	}
	return c.request(c.broker)
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

// httpError describes a non-2xx answer in the answer's own words, the credential
// the request carried masked (redactor.snippet).
func httpError(what string, resp *resty.Response) error {
	return fmt.Errorf("%s: HTTP %d: %s", what, resp.StatusCode(), answerText(resp))
}

// answerText is an answer's body as one short line, the credential its request
// carried masked: the only way an answer's words reach an error.
func answerText(resp *resty.Response) string {
	return answerRedactor(resp).snippet(resp.Body())
}

// answerRedactor masks the credential resp's request carried.
func answerRedactor(resp *resty.Response) redactor {
	if resp == nil || resp.Request == nil {
		return redactor{}
	}
	return redactorFor(resp.Request.Header)
}
