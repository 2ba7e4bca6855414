package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// authFileExample is what WARMUP_AUTH_HEADER_FILE errors say is expected.
const authFileExample = "expected the path of a file holding the Authorization header value, such as /var/run/secrets/pinot-auth/header"

// checkAuthHeaderFile reads the file the way the client will on every request.
// Its content is a secret, and so may the variable's value be: a token Secret's
// key set as the variable by mistake is taken for a path. An error shows the
// value only when it is plainly a path (plainPath).
func checkAuthHeaderFile(path string) error {
	if path == "" {
		return nil
	}
	// A header value set here by mistake (env from a Secret key instead of a
	// mounted file) is itself the secret: say so without printing it.
	if looksLikeCredential(path) {
		return fmt.Errorf("WARMUP_AUTH_HEADER_FILE: the value looks like an Authorization header value, not a file path (not shown): %s", authFileExample)
	}
	_, err := pinot.ReadAuthHeader(path)
	var fe *pinot.AuthFileError
	if !errors.As(err, &fe) {
		return err // nil: ReadAuthHeader fails with an *AuthFileError only
	}
	if !plainPath(path) {
		return fmt.Errorf("WARMUP_AUTH_HEADER_FILE: no readable file at the path given (%v); the value is not shown: it does not look like a path (it starts with neither / nor ./ or ../, or looks like a token) and may be a credential: %s",
			fe.Err, authFileExample)
	}
	if fe.Empty {
		return fmt.Errorf("WARMUP_AUTH_HEADER_FILE=%q: the file is empty: expected it to hold the Authorization header value, such as \"Basic <base64>\"", path)
	}
	return fmt.Errorf("WARMUP_AUTH_HEADER_FILE=%q: expected a readable file holding the Authorization header value (%v)", path, fe.Err)
}

// looksLikeCredential spots an Authorization value where a path belongs.
func looksLikeCredential(v string) bool {
	lower := strings.ToLower(v)
	return strings.HasPrefix(lower, "basic ") || strings.HasPrefix(lower, "bearer ") || strings.ContainsAny(v, " \t\n")
}

// tokenRun is the run of letters and digits that makes a value look like a
// token rather than a path: file and directory names are words joined by - _
// or . (serviceaccount is 14), a base64 token runs on for dozens of characters.
const tokenRun = 32

// plainPath reports whether v is plainly a file path, so an error may show it:
// it starts with /, ./ or ../, holds only ASCII letters, digits and . _ - /,
// and has no run of tokenRun or more letters and digits. A JWT or a base64
// user:password (which never starts with / or .) is never one.
func plainPath(v string) bool {
	if !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "./") && !strings.HasPrefix(v, "../") {
		return false
	}
	run := 0
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			if run++; run >= tokenRun {
				return false
			}
		case r == '.' || r == '_' || r == '-' || r == '/':
			run = 0
		default:
			return false
		}
	}
	return true
}
