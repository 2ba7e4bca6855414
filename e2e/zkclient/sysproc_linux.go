package zkclient

import "syscall"

// sysProcAttr puts the JVM in its own process group (a Ctrl-C to the test does not hit it
// mid-flush; Stop signals it as a unit) and has the kernel SIGKILL it if the Go process dies
// without Stop.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
