package pinot

import (
	"encoding/base64"
	"errors"
	"strings"
)

// redact removes the current credential from text the broker (or a proxy before
// it) wrote: an error page that echoes request headers would otherwise carry the
// secret into /status and the logs. It removes the whole header value, its
// credential part, and for Basic the decoded user:password and password.
func (c *Client) redact(text string) string {
	if c.auth == nil || text == "" {
		return text
	}
	v, err := c.auth.Header()
	if err != nil || v == "" {
		return text
	}
	secrets := []string{v}
	if scheme, cred, ok := strings.Cut(v, " "); ok {
		secrets = append(secrets, cred)
		if strings.EqualFold(scheme, "basic") {
			if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
				secrets = append(secrets, string(dec))
				if _, pw, ok := strings.Cut(string(dec), ":"); ok {
					secrets = append(secrets, pw)
				}
			}
		}
	}
	for _, s := range secrets {
		// Too short a piece would blank innocent text; a real credential is longer.
		if len(s) >= 6 {
			text = strings.ReplaceAll(text, s, "[REDACTED]")
		}
	}
	return text
}

// redactErr redacts an error's text (nil stays nil).
func (c *Client) redactErr(err error) error {
	if err == nil {
		return nil
	}
	if r := c.redact(err.Error()); r != err.Error() {
		return errors.New(r)
	}
	return err
}
