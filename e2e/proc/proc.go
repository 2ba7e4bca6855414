// Package proc runs the tooling's processes (the harness's JVMs, the test bed's control plane and
// containers): each in its own process group, its output appended to a log file (and, if asked,
// echoed with a "[name] " prefix), reaped by one goroutine, and signalled only by its own
// pid/pgid, never by name.
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one started process.
type Proc struct {
	Name    string
	cmd     *exec.Cmd
	log     string
	done    chan struct{}
	waitErr error // valid once done is closed
}

// Spec is what to start.
type Spec struct {
	Name string   // for errors, the log's header and the echo's prefix
	Argv []string // argv[0] is the executable
	Env  []string // nil: the parent's environment
	Dir  string   // working directory ("" = the parent's)
	Log  string   // output file, appended to (a restarted role keeps one log)
	Echo io.Writer
}

// Start starts s. Its process gets its own process group and, on Linux, SIGKILL if the Go process
// dies without stopping it (sysProcAttr), so a killed test leaves nothing behind.
func Start(s Spec) (*Proc, error) {
	if len(s.Argv) == 0 {
		return nil, fmt.Errorf("start %s: empty argv", s.Name)
	}
	if err := os.MkdirAll(filepath.Dir(s.Log), 0o755); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	log, err := os.OpenFile(s.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: open log: %w", s.Name, err)
	}
	fmt.Fprintf(log, "\n=== %s: %s\n", time.Now().Format(time.RFC3339Nano), strings.Join(s.Argv, " "))
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Env, cmd.Dir = s.Env, s.Dir
	var out io.Writer = log
	if s.Echo != nil {
		out = io.MultiWriter(log, &prefixWriter{prefix: "[" + s.Name + "] ", w: s.Echo})
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	p := &Proc{Name: s.Name, cmd: cmd, log: s.Log, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	return p, nil
}

// PID is the process's pid (== its process group id).
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// LogPath is the process's log file.
func (p *Proc) LogPath() string { return p.log }

// Done is closed when the process has exited and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited says whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitCode is the exit code once Done (128+n for signal n), and what ended it.
func (p *Proc) ExitCode() (int, string) {
	<-p.done
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		return 0, "Completed"
	case errors.As(p.waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), "Signal: " + ws.Signal().String()
		}
		return ee.ExitCode(), "Error"
	default:
		return -1, p.waitErr.Error()
	}
}

// ExitError describes how the process ended, for "died while starting" errors; nil while it runs.
func (p *Proc) ExitError() error {
	if !p.Exited() {
		return nil
	}
	if p.waitErr == nil {
		return errors.New("exited with status 0")
	}
	return p.waitErr
}

// Signal sends sig to the process group (the pgid is the pid: Setpgid).
func (p *Proc) Signal(sig syscall.Signal) {
	if p.Exited() {
		return
	}
	if err := syscall.Kill(-p.PID(), sig); err != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

// Stop sends SIGTERM, waits up to grace, then SIGKILLs, and returns once the process is reaped.
// grace <= 0 means SIGKILL at once.
func (p *Proc) Stop(grace time.Duration) {
	if grace > 0 {
		p.Signal(syscall.SIGTERM)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
	}
	p.Signal(syscall.SIGKILL)
	<-p.done
}

// Tail is the last n lines of the process's log, to put its own words into errors.
func (p *Proc) Tail(n int) string { return Tail(p.log, n) }

// Tail is the last n lines of a log file (at most its last 16 KiB).
func Tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	const maxBytes = 16 << 10
	if len(data) > maxBytes {
		data = data[len(data)-maxBytes:]
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// prefixWriter prefixes each line; the mutex keeps lines of concurrent processes whole.
type prefixWriter struct {
	prefix string
	w      io.Writer
	buf    bytes.Buffer
}

var echoMu sync.Mutex

func (pw *prefixWriter) Write(b []byte) (int, error) {
	echoMu.Lock()
	defer echoMu.Unlock()
	pw.buf.Write(b)
	for {
		line, err := pw.buf.ReadBytes('\n')
		if err != nil {
			pw.buf.Write(line) // incomplete line: keep for the next write
			return len(b), nil
		}
		if _, err := io.WriteString(pw.w, pw.prefix+string(line)); err != nil {
			return len(b), err
		}
	}
}
