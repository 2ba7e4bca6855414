//go:build !linux

package zkclient

import "syscall"

// sysProcAttr: no Pdeathsig outside Linux; Stop (and ctx ending) remain the cleanup path.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
