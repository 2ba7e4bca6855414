package pinot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileAuthRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "auth")
	writeFile(t, path, "Basic AAAA\n")
	a, err := NewFileAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"Basic AAAA", "Basic BBBB", "Basic CCCC", "Basic a-longer-value"} {
		if i > 0 {
			// Rewritten in place, same size, within the file system's timestamp
			// granularity: only the content tells the values apart.
			writeFile(t, path, want+"\n")
		}
		got, err := a.Header()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("after write %d: Header() = %q, want %q", i, got, want)
		}
	}
}

// A rewrite that keeps size, inode and mtime (a file system with coarse
// timestamps, where two writes inside one tick share an mtime, or a tool that
// preserves mtime) must still be seen.
func TestFileAuthSeesRewriteWithUnchangedMtime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth")
	writeFile(t, path, "Basic AAAA")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewFileAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "Basic BBBB")
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Header(); err != nil || got != "Basic BBBB" {
		t.Fatalf("Header() = %q, %v; want the rewritten value", got, err)
	}
}

// kubeSecret lays out a mounted Secret the way the kubelet's atomic writer does:
// dir/auth → ..data/auth, ..data → ..<timestamp>/ holding the real file.
type kubeSecret struct {
	t   *testing.T
	dir string
	gen int
}

func newKubeSecret(t *testing.T, value string) *kubeSecret {
	k := &kubeSecret{t: t, dir: t.TempDir()}
	k.publish(value)
	if err := os.Symlink(filepath.Join("..data", "auth"), filepath.Join(k.dir, "auth")); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k *kubeSecret) path() string { return filepath.Join(k.dir, "auth") }

// publish writes value into a fresh timestamped dir and swaps ..data to it with a
// rename, as the kubelet does, then removes the old dir.
func (k *kubeSecret) publish(value string) {
	k.t.Helper()
	k.gen++
	gen := filepath.Join(k.dir, "..2026_01_01_00_00_0"+string(rune('0'+k.gen)))
	if err := os.Mkdir(gen, 0o755); err != nil {
		k.t.Fatal(err)
	}
	writeFile(k.t, filepath.Join(gen, "auth"), value)
	tmp := filepath.Join(k.dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(gen), tmp); err != nil {
		k.t.Fatal(err)
	}
	old, _ := os.Readlink(filepath.Join(k.dir, "..data"))
	if err := os.Rename(tmp, filepath.Join(k.dir, "..data")); err != nil {
		k.t.Fatal(err)
	}
	if old != "" {
		if err := os.RemoveAll(filepath.Join(k.dir, old)); err != nil {
			k.t.Fatal(err)
		}
	}
}

func TestFileAuthKubernetesSecretRotation(t *testing.T) {
	k := newKubeSecret(t, "Basic b2xkOm9sZA==")
	b := newBroker(t)
	b.RequireAuth("Basic b2xkOm9sZA==")
	a, err := NewFileAuth(k.path())
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{BrokerURL: b.URL(), Auth: a})
	ctx := context.Background()
	if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Success {
		t.Fatalf("before rotation: %+v", r)
	}

	// Same length, so size alone cannot reveal the change.
	k.publish("Basic bmV3Om5ldw==")
	b.RequireAuth("Basic bmV3Om5ldw==")
	if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Success {
		t.Fatalf("after rotation: %+v", r)
	}
	if got := b.LastAuth(); got != "Basic bmV3Om5ldw==" {
		t.Errorf("after rotation the broker saw %q", got)
	}
}

func TestFileAuthErrors(t *testing.T) {
	dir := t.TempDir()
	const old = "Basic c2VjcmV0OnNlY3JldA=="

	t.Run("missing at start names the path", func(t *testing.T) {
		path := filepath.Join(dir, "missing")
		_, err := NewFileAuth(path)
		if err == nil || err.Error() != "reading auth header file "+path+": no such file or directory" {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("removed later: names the path, not the old value", func(t *testing.T) {
		path := filepath.Join(dir, "removed")
		writeFile(t, path, old)
		a, err := NewFileAuth(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		v, err := a.Header()
		if err == nil {
			t.Fatalf("no error, value %q", v)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the file", err)
		}
		if strings.Contains(err.Error(), "c2VjcmV0") || v != "" {
			t.Errorf("the old value leaked: %q, %q", err, v)
		}
	})
	for name, content := range map[string]string{"empty": "", "blank": " \n\t\n"} {
		t.Run(name+" file", func(t *testing.T) {
			path := filepath.Join(dir, name)
			writeFile(t, path, content)
			_, err := NewFileAuth(path)
			want := "auth header file " + path + ` is empty: expected an Authorization header value such as "Basic <base64>"`
			if err == nil || err.Error() != want {
				t.Fatalf("error %v, want %s", err, want)
			}
		})
	}
	t.Run("emptied later", func(t *testing.T) {
		path := filepath.Join(dir, "emptied")
		writeFile(t, path, old)
		a, err := NewFileAuth(path)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, "")
		if v, err := a.Header(); err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
			t.Fatalf("Header() = %q, %v; want an error without the old value", v, err)
		}
	})
	t.Run("a directory", func(t *testing.T) {
		_, err := NewFileAuth(dir)
		if err == nil || !strings.Contains(err.Error(), dir) {
			t.Fatalf("error %v", err)
		}
	})
}

// Config checks the file at startup with the same reader the client uses, and
// tells its failures apart by type, not by text.
func TestReadAuthHeaderErrorsAreTyped(t *testing.T) {
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank")
	writeFile(t, blank, " \n")
	good := filepath.Join(dir, "good")
	writeFile(t, good, "\n Basic c2VjcmV0OnNlY3JldA== \n")

	if v, err := ReadAuthHeader(good); err != nil || v != "Basic c2VjcmV0OnNlY3JldA==" {
		t.Fatalf("ReadAuthHeader(good) = %q, %v; want the trimmed value", v, err)
	}
	var fe *AuthFileError
	_, err := ReadAuthHeader(blank)
	if !errors.As(err, &fe) || !fe.Empty || fe.Path != blank || fe.Err != nil {
		t.Errorf("blank file: %#v, want an empty *AuthFileError naming it", err)
	}
	_, err = ReadAuthHeader(filepath.Join(dir, "missing"))
	if !errors.As(err, &fe) || fe.Empty || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %#v, want an *AuthFileError that Is fs.ErrNotExist", err)
	}
}
