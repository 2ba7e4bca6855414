package cluster

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

// proc is one JVM of the cluster. It runs in its own process group and is only ever signalled by
// its own pid/pgid; a goroutine reaps it so exit is observable (done) without polling.
type proc struct {
	role    string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	done    chan struct{}
	waitErr error // valid once done is closed
}

// startProc starts argv with its output in logPath (appended: a restarted broker keeps one log)
// and, if echo is set, copied there with a "[role] " prefix.
func startProc(role, dir, logPath string, argv []string, echo io.Writer) (*proc, error) {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, fmt.Errorf("start %s: %w", role, err)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: open log: %w", role, err)
	}
	fmt.Fprintf(logFile, "\n=== %s: %s\n", time.Now().Format(time.RFC3339Nano), strings.Join(argv, " "))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = nil
	var out io.Writer = logFile
	if echo != nil {
		out = io.MultiWriter(logFile, &prefixWriter{prefix: "[" + role + "] ", w: echo})
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", role, err)
	}
	p := &proc{role: role, cmd: cmd, logPath: logPath, logFile: logFile, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal targets the process group (== pid thanks to Setpgid) so nothing the JVM might spawn
// survives it; it never reaches beyond what this harness started.
func (p *proc) signal(sig syscall.Signal) {
	if p.exited() {
		return
	}
	if err := syscall.Kill(-p.pid(), sig); err != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

// stop sends SIGTERM, waits up to grace, then SIGKILL, and returns once the process is reaped.
// grace <= 0 means SIGKILL at once.
func (p *proc) stop(grace time.Duration) {
	if grace > 0 {
		p.signal(syscall.SIGTERM)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
	}
	p.signal(syscall.SIGKILL)
	<-p.done
}

// exitError describes how the process ended, for "died while starting" errors.
func (p *proc) exitError() error {
	if !p.exited() {
		return nil
	}
	if p.waitErr == nil {
		return errors.New("exited with status 0")
	}
	return p.waitErr
}

// tail returns the last n lines of the process log, to put the JVM's own words into errors.
func (p *proc) tail(n int) string {
	data, err := os.ReadFile(p.logPath)
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

// prefixWriter prefixes each line; the mutex keeps lines of concurrent JVMs whole.
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
