//go:build !linux

package proc

import "syscall"

// sysProcAttr: no Pdeathsig outside Linux; Stop (and ctx cancellation) remain the cleanup path.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
