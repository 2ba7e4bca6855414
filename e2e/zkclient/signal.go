package zkclient

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// signal targets the JVM's own process group (its pgid is its pid), nothing beyond it.
func signal(p *os.Process, sig syscall.Signal) {
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		_ = p.Signal(sig)
	}
}

// signalled reports an end Stop caused: death by SIGTERM or SIGKILL, or the JVM's own exit status
// after running its shutdown hooks on SIGTERM (128 + 15).
func signalled(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok {
		return false
	}
	if ws.Signaled() {
		return ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGKILL
	}
	return ws.Exited() && ws.ExitStatus() == 128+int(syscall.SIGTERM)
}
