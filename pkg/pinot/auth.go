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
// credential takes effect on the next probe: an in-place rewrite can keep size,
// inode and mtime, so only the content tells, and a few bytes cost less to read
// than the round trip they authorise. Errors name the file, never its content.
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
