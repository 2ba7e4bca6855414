// Package proc runs the test bed's processes: each in its own process group, its output in a log
// file, reaped by one goroutine, and stopped only by its own pid/pgid (never by name).
package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Proc is one started process.
type Proc struct {
	Name    string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error // valid once done is closed
}

// Spec is what to start.
type Spec struct {
	Name string   // for errors and the log's header
	Argv []string // argv[0] is the executable
	Env  []string // nil: the parent's environment
	Dir  string   // working directory ("" = the parent's)
	Log  string   // output file, appended to
}

// Start starts s. Its process gets its own process group and SIGKILL if the test process dies
// without stopping it (Pdeathsig), so a killed test leaves nothing behind.
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
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	p := &Proc{Name: s.Name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	return p, nil
}

// PID is the process's pid (== its process group id).
func (p *Proc) PID() int { return p.cmd.Process.Pid }

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

// ExitCode is the exit code once Done (-1 for a signal), and what ended it.
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

// Signal sends sig to the process group (the pgid is the pid: Setpgid).
func (p *Proc) Signal(sig syscall.Signal) {
	if p.Exited() {
		return
	}
	if err := syscall.Kill(-p.PID(), sig); err != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

// Stop sends SIGTERM, waits up to grace, then SIGKILLs and waits for the exit.
func (p *Proc) Stop(grace time.Duration) {
	p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	p.Signal(syscall.SIGKILL)
	<-p.done
}
