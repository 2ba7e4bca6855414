package proc

import "syscall"

// sysProcAttr puts each JVM in its own process group (so a Ctrl-C to the test's group does not hit
// it mid-shutdown and Stop can signal it as a unit) and asks the kernel to SIGKILL it if the Go
// process dies without Stop: a killed test binary leaves no JVM behind. Pdeathsig follows the
// forking OS thread; Go only retires a thread when a goroutine exits while locked to it, which
// this package never does.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
