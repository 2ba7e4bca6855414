package pinot

import (
	"fmt"
	"net/http"
)

// DefaultAuthHint is what messages about missing or refused credentials tell the
// operator when Options.AuthHint is empty.
const DefaultAuthHint = "the client needs the Authorization header value of a principal allowed to read the tables"

// UnauthorizedError is a 401/403 from Pinot: the credential is missing or rejected.
type UnauthorizedError struct {
	// What was being done, such as "listing tables from controller".
	What string
	// Status is the HTTP status, 401 or 403.
	Status int
	// Hint says how to supply a credential (Options.AuthHint); empty: DefaultAuthHint.
	Hint string
}

// Error says what was refused, with the status and the hint.
func (e *UnauthorizedError) Error() string {
	if e.Status == http.StatusUnauthorized {
		return fmt.Sprintf("%s: HTTP 401: no or wrong credentials (%s)", e.What, hintOr(e.Hint))
	}
	return fmt.Sprintf("%s: HTTP %d: the credential is not allowed this (%s)", e.What, e.Status, hintOr(e.Hint))
}

// unauthorized is the client's error for a 401/403 answer, with its hint.
func (c *Client) unauthorized(what string, status int) error {
	return &UnauthorizedError{What: what, Status: status, Hint: c.authHint}
}

func hintOr(h string) string {
	if h == "" {
		return DefaultAuthHint
	}
	return h
}
