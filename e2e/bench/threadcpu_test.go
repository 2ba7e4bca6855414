package bench

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// statLine is a /proc stat line of a thread named name with utime and stime ticks.
func statLine(tid int, name string, utime, stime int) string {
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
	return strconv.Itoa(tid) + " (" + name + ") S 1 1 1 0 -1 0 0 0 0 0 " + strconv.Itoa(utime) + " " + strconv.Itoa(stime) + " 0 0 20 0 40 0\n"
}

func TestThreadCPUSplitsCompilerGCAndTheRest(t *testing.T) {
	root := t.TempDir()
	threads := []struct {
		name         string
		utime, stime int
	}{
		{"java", 100, 10},
		{"C2 CompilerThre", 2500, 100},
		{"C1 CompilerThre", 400, 0},
		{"GC Thread#0", 30, 5},
		{"G1 Conc#0", 20, 0},
		{"VM Thread", 7, 3},
		{"jersey-server-m", 500, 90},
		{"x) (y", 1, 1}, // a thread name with parentheses
	}
	write := func(root string, tid int, name string, utime, stime int) {
		dir := filepath.Join(root, "42", "task", strconv.Itoa(tid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(statLine(tid, name, utime, stime)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, th := range threads {
		write(root, 100+i, th.name, th.utime, th.stime)
	}
	got, err := threadCPU(root, 42)
	if err != nil {
		t.Fatal(err)
	}
	want := BrokerThreadCPU{Compiler: 30.0, GC: 0.65, Other: 7.02}
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"compiler", got.Compiler, want.Compiler}, {"gc", got.GC, want.GC}, {"other", got.Other, want.Other}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v s, want %v s", c.what, c.got, c.want)
		}
	}
	// Later: the C2 thread used 5 s more, the C1 thread exited, a new C1 thread used 1 s.
	write(root, 101, "C2 CompilerThre", 3000, 100)
	if err := os.RemoveAll(filepath.Join(root, "42", "task", "102")); err != nil {
		t.Fatal(err)
	}
	write(root, 200, "C1 CompilerThre", 100, 0)
	later, err := threadCPU(root, 42)
	if err != nil {
		t.Fatal(err)
	}
	d := later.Sub(got)
	if math.Abs(d.Compiler-6) > 1e-9 || d.GC != 0 || d.Other != 0 {
		t.Errorf("Sub = %+v, want 6 s of compiler CPU (5 s of C2, 1 s of the new C1; the exited thread's 4 s not subtracted)", d)
	}
	if _, err := threadCPU(root, 43); err == nil {
		t.Error("a pid without threads read without an error")
	}
}

func TestThreadCPUOfThisProcess(t *testing.T) {
	// Spin until this process's threads show 50 ms of CPU (longer in wall time on a busy machine).
	var c BrokerThreadCPU
	for end := time.Now().Add(5 * time.Second); c.Other < 0.05 && time.Now().Before(end); {
		var err error
		if c, err = ThreadCPU(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	if c.Other < 0.05 || c.Compiler != 0 {
		t.Errorf("this Go process: compiler %v s, gc %v s, other %v s; want ≥ 0.05 s, in other threads only", c.Compiler, c.GC, c.Other)
	}
}
