package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BrokerThreadCPU is a JVM's CPU seconds split by what its threads do, from
// /proc/<pid>/task/*/stat. The JVM's compile-time counter (java.ci.totalTime) is the
// wall time of compilations, which on a busy machine counts a descheduled compiler
// thread too; these are the CPU seconds the compiler threads really took.
type BrokerThreadCPU struct {
	Compiler float64 // "C1 CompilerThre…", "C2 CompilerThre…"
	GC       float64 // "GC Thread#n", "G1 …", "VM Thread" (safepoint operations)
	Other    float64 // every other thread: the serve path, Helix, metrics, …
}

// Sub is the change from an earlier reading. A thread that exited between the two
// readings takes its CPU with it, so a share can read low (never high).
func (c BrokerThreadCPU) Sub(earlier BrokerThreadCPU) BrokerThreadCPU {
	return BrokerThreadCPU{Compiler: c.Compiler - earlier.Compiler, GC: c.GC - earlier.GC, Other: c.Other - earlier.Other}
}

// ThreadCPU reads pid's threads under /proc.
func ThreadCPU(pid int) (BrokerThreadCPU, error) { return threadCPU("/proc", pid) }

func threadCPU(procRoot string, pid int) (BrokerThreadCPU, error) {
	dir := filepath.Join(procRoot, fmt.Sprint(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return BrokerThreadCPU{}, fmt.Errorf("thread cpu of pid %d: %w", pid, err)
	}
	var c BrokerThreadCPU
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "stat"))
		if err != nil {
			continue // the thread exited after the listing
		}
		name, secs, err := parseStat(string(b))
		if err != nil {
			return BrokerThreadCPU{}, fmt.Errorf("thread cpu of pid %d, thread %s: %w", pid, t.Name(), err)
		}
		switch threadKind(name) {
		case "compiler":
			c.Compiler += secs
		case "gc":
			c.GC += secs
		default:
			c.Other += secs
		}
	}
	return c, nil
}

// threadKind classifies a HotSpot thread by its name (as /proc shows it: 15 bytes).
func threadKind(name string) string {
	switch {
	case strings.HasPrefix(name, "C1 CompilerThre"), strings.HasPrefix(name, "C2 CompilerThre"):
		return "compiler"
	case strings.HasPrefix(name, "GC Thread"), strings.HasPrefix(name, "G1 "), name == "VM Thread":
		return "gc"
	}
	return "other"
}
