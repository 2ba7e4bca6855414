package bench

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
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
	for i, th := range threads {
		dir := filepath.Join(root, "42", "task", strconv.Itoa(100+i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(statLine(100+i, th.name, th.utime, th.stime)), 0o644); err != nil {
			t.Fatal(err)
		}
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
	if d := got.Sub(BrokerThreadCPU{Compiler: 10, GC: 0.5, Other: 7}); math.Abs(d.Compiler-20) > 1e-9 {
		t.Errorf("Sub: compiler %v, want 20", d.Compiler)
	}
	if _, err := threadCPU(root, 43); err == nil {
		t.Error("a pid without threads read without an error")
	}
}

func TestThreadCPUOfThisProcess(t *testing.T) {
	c, err := ThreadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if c.Other <= 0 || c.Compiler != 0 {
		t.Errorf("this Go process: %+v, want CPU in other threads only", c)
	}
}
