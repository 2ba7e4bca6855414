package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	// threads are the per-thread readings behind the sums, by thread id.
	threads map[int]threadReading
}

// threadKind is what a JVM thread does, by its name.
type threadKind int

const (
	otherThread threadKind = iota
	compilerThread
	gcThread
)

type threadReading struct {
	kind threadKind
	secs float64
}

// Sub is the CPU used between an earlier reading and this one, thread by thread: the JVM
// starts and stops compiler threads as its queue grows and shrinks, so the sums alone can
// fall. A thread that exited between the readings takes its CPU since the earlier one with
// it, so a figure can read low, never high or below zero.
func (c BrokerThreadCPU) Sub(earlier BrokerThreadCPU) BrokerThreadCPU {
	var d BrokerThreadCPU
	for tid, t := range c.threads {
		used := t.secs - earlier.threads[tid].secs
		if used < 0 { // a thread id reused by a newer thread
			used = t.secs
		}
		d.add(t.kind, used)
	}
	return d
}

func (c *BrokerThreadCPU) add(kind threadKind, secs float64) {
	switch kind {
	case compilerThread:
		c.Compiler += secs
	case gcThread:
		c.GC += secs
	default:
		c.Other += secs
	}
}

// ThreadCPU reads pid's threads under /proc.
func ThreadCPU(pid int) (BrokerThreadCPU, error) { return threadCPU("/proc", pid) }

func threadCPU(procRoot string, pid int) (BrokerThreadCPU, error) {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return BrokerThreadCPU{}, fmt.Errorf("thread cpu of pid %d: %w", pid, err)
	}
	c := BrokerThreadCPU{threads: make(map[int]threadReading, len(tasks))}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "stat"))
		if err != nil {
			continue // the thread exited after the listing
		}
		name, secs, err := parseStat(string(b))
		if err != nil {
			return BrokerThreadCPU{}, fmt.Errorf("thread cpu of pid %d, thread %s: %w", pid, t.Name(), err)
		}
		kind := kindOf(name)
		c.threads[tid] = threadReading{kind: kind, secs: secs}
		c.add(kind, secs)
	}
	return c, nil
}

// kindOf classifies a HotSpot thread by its name (as /proc shows it: 15 bytes).
func kindOf(name string) threadKind {
	switch {
	case strings.HasPrefix(name, "C1 CompilerThre"), strings.HasPrefix(name, "C2 CompilerThre"):
		return compilerThread
	case strings.HasPrefix(name, "GC Thread"), strings.HasPrefix(name, "G1 "), name == "VM Thread":
		return gcThread
	}
	return otherThread
}
