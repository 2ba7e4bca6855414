package pinot

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// AuthSource yields the Authorization header value for the next request.
type AuthSource interface {
	Header() (string, error)
}

// FileAuth reads the header value from a file on every request, so a rotated
// credential takes effect on the next probe. Kubernetes rotates mounted Secrets by
// swapping a symlink, but other writers rewrite the file in place, and a rewrite of
// the same size inside one timestamp tick keeps size, inode and mtime: only the
// content tells. The file is a few bytes; one read per probe is cheaper than the
// HTTP round trip it authorises. The value is never put into an error or log line;
// errors name only the file.
type FileAuth struct {
	path string
}

// NewFileAuth reads path once so a missing, unreadable or empty file is a startup
// error.
func NewFileAuth(path string) (*FileAuth, error) {
	a := &FileAuth{path: path}
	if _, err := a.Header(); err != nil {
		return nil, err
	}
	return a, nil
}

// Header returns the file's current value, trimmed.
func (a *FileAuth) Header() (string, error) {
	b, err := os.ReadFile(a.path)
	if err != nil {
		return "", fmt.Errorf("reading auth header file %s: %w", a.path, pathErr(err))
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("auth header file %s is empty: expected an Authorization header value such as \"Basic <base64>\"", a.path)
	}
	return v, nil
}

// pathErr drops the *PathError wrapper, whose text would repeat the path.
func pathErr(err error) error {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
