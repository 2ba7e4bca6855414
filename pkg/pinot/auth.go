package pinot

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// AuthSource yields the Authorization header value for the next request.
type AuthSource interface {
	Header() (string, error)
}

// FileAuth reads the header value from a file and re-reads it when the file
// changes: Kubernetes rotates mounted Secrets in place by swapping a symlink, so
// stat (which follows links) sees a new mtime, size or inode. The value is never
// put into an error or log line; errors name only the file.
type FileAuth struct {
	path string

	mu    sync.Mutex
	value string
	stamp fileStamp
}

type fileStamp struct {
	mod  time.Time
	size int64
	ino  uint64
}

// NewFileAuth reads path once so a missing or unreadable file is a startup error.
func NewFileAuth(path string) (*FileAuth, error) {
	a := &FileAuth{path: path}
	if _, err := a.Header(); err != nil {
		return nil, err
	}
	return a, nil
}

// Header returns the current value, re-reading the file if it changed.
func (a *FileAuth) Header() (string, error) {
	fi, err := os.Stat(a.path)
	if err != nil {
		return "", fmt.Errorf("reading auth header file %s: %w", a.path, errors.Unwrap(err))
	}
	st := fileStamp{mod: fi.ModTime(), size: fi.Size(), ino: inode(fi)}
	a.mu.Lock()
	defer a.mu.Unlock()
	if st == a.stamp && a.value != "" {
		return a.value, nil
	}
	b, err := os.ReadFile(a.path)
	if err != nil {
		return "", fmt.Errorf("reading auth header file %s: %w", a.path, errors.Unwrap(err))
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("auth header file %s is empty: expected an Authorization header value such as \"Basic <base64>\"", a.path)
	}
	a.value, a.stamp = v, st
	return v, nil
}
