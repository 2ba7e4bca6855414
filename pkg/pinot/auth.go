package pinot

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// AuthSource yields the Authorization header value for the next request.
type AuthSource interface {
	// Header returns the value to send; "" sends none. Its errors must not
	// carry the value.
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
func (a *FileAuth) Header() (string, error) { return ReadAuthHeader(a.path) }

// ReadAuthHeader reads an Authorization header value from the file at path,
// trimmed of surrounding white space. A file that cannot be read or holds only
// white space is an *AuthFileError.
func ReadAuthHeader(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &AuthFileError{Path: path, Err: pathErr(err)}
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", &AuthFileError{Path: path, Empty: true}
	}
	return v, nil
}

// AuthFileError is an auth header file that cannot be used. It names the file and
// never carries the file's content.
type AuthFileError struct {
	// Path is the file's path.
	Path string
	// Empty is true when the file was read but holds only white space.
	Empty bool
	// Err is why the file could not be read (nil when Empty), without the path.
	Err error
}

// Error names the file and what is wrong with it, never its content.
func (e *AuthFileError) Error() string {
	if e.Empty {
		return fmt.Sprintf("auth header file %s is empty: expected an Authorization header value such as \"Basic <base64>\"", e.Path)
	}
	return fmt.Sprintf("reading auth header file %s: %v", e.Path, e.Err)
}

// Unwrap returns the read error, so errors.Is(err, fs.ErrNotExist) works.
func (e *AuthFileError) Unwrap() error { return e.Err }

// pathErr drops the *PathError wrapper, whose text would repeat the path.
func pathErr(err error) error {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
