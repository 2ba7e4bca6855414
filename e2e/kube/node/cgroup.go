package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The kubelet's CPU arithmetic (pkg/kubelet/cm: MilliCPUToShares, MilliCPUToQuota): shares are
// 1024 per CPU requested, at least 2; the CFS quota is the limit's share of a 100 ms period, at
// least 1 ms; no limit is no quota (-1).
const (
	cfsPeriodUs = 100_000
	minShares   = 2
	minQuotaUs  = 1_000
)

// CPUShares is cpu.shares for a request of milliCPU.
func CPUShares(milliCPU int64) int64 {
	if milliCPU <= 0 {
		return minShares
	}
	return max(milliCPU*1024/1000, minShares)
}

// CPUQuota is cpu.cfs_quota_us for a limit of milliCPU (0: no limit, -1).
func CPUQuota(milliCPU int64) int64 {
	if milliCPU <= 0 {
		return -1
	}
	return max(milliCPU*cfsPeriodUs/1000, minQuotaUs)
}

// CPU is one cgroup's CPU settings.
type CPU struct {
	Shares  int64
	QuotaUs int64 // -1: unlimited
}

// cgroups are the cgroup v1 hierarchies a pod's processes join: cpu (shares, quota: the pod's CPU
// request and limit) and cpuacct (its CPU time, which the studies read).
type cgroups struct {
	cpuRoot, acctRoot string // <mount>/<test bed root>
}

// ErrNoCPUController says the machine cannot give pods their CPU: the test bed refuses to run
// without isolation rather than run without it silently.
var ErrNoCPUController = errors.New("no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu")

// RemoveStale removes the groups under /sys/fs/cgroup/{cpu,cpuacct} named prefix-<pid> whose pid
// is gone: what a test bed killed before it could clean up left behind (its processes died with it,
// Pdeathsig). It returns what it removed.
func RemoveStale(prefix string) []string {
	var removed []string
	for _, mount := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct"} {
		entries, _ := os.ReadDir(mount)
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), prefix+"-")
			if !ok || !e.IsDir() {
				continue
			}
			pid, err := strconv.Atoi(rest)
			if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
				continue
			}
			cg := &cgroups{cpuRoot: filepath.Join(mount, e.Name()), acctRoot: filepath.Join(mount, e.Name())}
			if cg.remove("") == nil {
				removed = append(removed, filepath.Join(mount, e.Name()))
			}
		}
	}
	return removed
}

// newCgroups makes the test bed's root under /sys/fs/cgroup/{cpu,cpuacct}/<root>, sized as the
// kubelet sizes its kubepods group (cpu.shares for the node's allocatable CPU, no quota), and
// checks it can set a quota there. With the default 1024 shares the pods together would weigh
// one CPU against the machine's other processes, whatever the node's capacity.
func newCgroups(root string, allocatableMilli int64) (*cgroups, error) {
	cg := &cgroups{cpuRoot: filepath.Join("/sys/fs/cgroup/cpu", root), acctRoot: filepath.Join("/sys/fs/cgroup/cpuacct", root)}
	for _, d := range []string{cg.cpuRoot, cg.acctRoot} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoCPUController, err)
		}
	}
	if err := cg.set("", CPU{Shares: CPUShares(allocatableMilli), QuotaUs: -1}); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCPUController, err)
	}
	return cg, nil
}

// paths of a group (relative to the root, e.g. "pod<uid>/broker").
func (cg *cgroups) dirs(rel string) []string {
	return []string{filepath.Join(cg.cpuRoot, rel), filepath.Join(cg.acctRoot, rel)}
}

// ensure creates rel in both hierarchies and sets its CPU.
func (cg *cgroups) ensure(rel string, c CPU) error {
	for _, d := range cg.dirs(rel) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("cgroup %s: %w", rel, err)
		}
	}
	return cg.set(rel, c)
}

// set writes shares and quota. The kernel refuses a child quota above its parent's, so callers
// raise the pod before its container and lower the container before its pod (see Pod.resize).
func (cg *cgroups) set(rel string, c CPU) error {
	d := filepath.Join(cg.cpuRoot, rel)
	if err := writeInt(filepath.Join(d, "cpu.shares"), c.Shares); err != nil {
		return fmt.Errorf("cgroup %s: cpu.shares %d: %w", rel, c.Shares, err)
	}
	if err := writeInt(filepath.Join(d, "cpu.cfs_quota_us"), c.QuotaUs); err != nil {
		return fmt.Errorf("cgroup %s: cpu.cfs_quota_us %d: %w", rel, c.QuotaUs, err)
	}
	return nil
}

// read is what the kernel has for rel.
func (cg *cgroups) read(rel string) (CPU, error) {
	d := filepath.Join(cg.cpuRoot, rel)
	s, err := readInt(filepath.Join(d, "cpu.shares"))
	if err != nil {
		return CPU{}, err
	}
	q, err := readInt(filepath.Join(d, "cpu.cfs_quota_us"))
	return CPU{Shares: s, QuotaUs: q}, err
}

// procsFiles are the cgroup.procs files a process writes its pid to, to join rel.
func (cg *cgroups) procsFiles(rel string) []string {
	var out []string
	for _, d := range cg.dirs(rel) {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// usage is rel's CPU time so far (cpuacct.usage).
func (cg *cgroups) usage(rel string) (time.Duration, error) {
	n, err := readInt(filepath.Join(cg.acctRoot, rel, "cpuacct.usage"))
	return time.Duration(n), err
}

// pids are the processes in rel and every group below it.
func (cg *cgroups) pids(rel string) []int {
	var out []int
	_ = filepath.Walk(filepath.Join(cg.cpuRoot, rel), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || info.Name() != "cgroup.procs" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
		return nil
	})
	return out
}

// remove SIGKILLs whatever is still in rel (a process a container left behind) and removes the
// group, children first, from both hierarchies.
func (cg *cgroups) remove(rel string) error {
	for range 50 {
		pids := cg.pids(rel)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var errs []error
	for _, d := range cg.dirs(rel) {
		var dirs []string
		_ = filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- { // deepest first
			if err := os.Remove(dirs[i]); err != nil && !os.IsNotExist(err) {
				errs = append(errs, fmt.Errorf("remove cgroup %s: %w", dirs[i], err))
			}
		}
	}
	return errors.Join(errs...)
}

func writeInt(path string, v int64) error {
	return os.WriteFile(path, []byte(strconv.FormatInt(v, 10)), 0o644)
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
