package sidecar

import "syscall"

// Pdeathsig: if the test binary dies, the sidecar dies with it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
