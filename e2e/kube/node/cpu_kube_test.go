//go:build kube

package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestCPULimit: a container spinning two goroutines gets what its CPU limit says, as the CFS
// quota the kubelet writes enforces it: 300m is about 0.3 CPU-seconds per second; with no limit
// it takes more than one of the machine's two cores; an in-place resize to 600m moves it to
// about 0.6. The quota is a hard ceiling; the floor needs a machine with CPU to spare, so the
// lower bounds are checked only when the unlimited pod shows there was (the test bed's cgroup
// root weighs the node's 2 CPUs, 2048 shares, against the machine's other work).
func TestCPULimit(t *testing.T) {
	b := startBed(t, "node-cpu")
	defer b.stop()
	ns := "cpu"
	b.namespace(t, ns)
	ctx := context.Background()

	limited := b.helperPod(ns, "limited", "BURN=2")
	limited.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")},
	}
	limited.Spec.Containers[0].ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired}}
	free := b.helperPod(ns, "free", "BURN=2")
	lp, ll := b.create(t, limited)
	defer b.deletePod(t, lp, ll)
	fp, fl := b.create(t, free)
	defer b.deletePod(t, fp, fl)
	for _, l := range []*podLog{ll, fl} {
		l.first(t, "running", time.Time{}, 30*time.Second, func(p *corev1.Pod) bool { return containerStatus(p, "app").State.Running != nil })
	}
	time.Sleep(500 * time.Millisecond) // past the process start

	// The pods' parent weighs what the node's 2 CPUs do, as the kubelet's kubepods group.
	if root, err := b.agent.RootCPU(); err != nil || root.Shares != 2048 || root.QuotaUs != -1 {
		t.Errorf("the test bed's root group %+v (%v), want shares 2048 (2 CPUs allocatable) and no quota", root, err)
	}
	if cpu, err := b.agent.CgroupCPU(fp.UID, "app"); err != nil || cpu.QuotaUs != -1 {
		t.Errorf("no limit: cgroup %+v (%v), want no quota (-1)", cpu, err)
	}
	m := b.cpuRates(t, 3*time.Second, lp.UID, fp.UID)
	t.Logf("CPU-seconds per second: 300m limit %.2f, no limit %.2f; the machine idle %.2f", m.rates[0], m.rates[1], m.idle)
	m.check(t, "300m", m.rates[0], 0.3, m.throttled[0])
	m.unlimited(t, m.rates[1])

	patch := []byte(`{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"600m"},"requests":{"cpu":"600m"}}}]}}`)
	if _, err := b.admin.CoreV1().Pods(ns).Patch(ctx, lp.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "resize"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "resize to 600m applied", 20*time.Second, func() (bool, error) {
		cpu, err := b.agent.CgroupCPU(lp.UID, "app")
		return err == nil && cpu.QuotaUs == 60000, fmt.Errorf("cgroup %+v: %v", cpu, err)
	})
	time.Sleep(200 * time.Millisecond)
	m = b.cpuRates(t, 3*time.Second, lp.UID, fp.UID)
	t.Logf("after the resize: 600m limit %.2f, no limit %.2f; the machine idle %.2f", m.rates[0], m.rates[1], m.idle)
	m.check(t, "600m after the resize", m.rates[0], 0.6, m.throttled[0])
	m.unlimited(t, m.rates[1])
}

// cpuMeasure is the pods' CPU-seconds per second over a window and the machine's idle CPUs then.
type cpuMeasure struct {
	rates     []float64
	throttled []int64 // periods the CFS quota throttled the container in (cpu.stat nr_throttled)
	idle      float64
}

// contended says the pods could not have had more: the unlimited one got under 0.8 and the
// machine had nothing idle (others' work took it).
func (m cpuMeasure) contended(unlimited float64) bool { return unlimited < 0.8 && m.idle < 0.2 }

// check holds a limited pod's rate to its limit: never above (+25%); not below (-25%) unless the
// machine had no CPU to spare; and at the limit, held there by the quota (throttled), not by
// the machine's other work.
func (m cpuMeasure) check(t *testing.T, what string, got, limit float64, throttled int64) {
	t.Helper()
	if got > limit*1.25 {
		t.Errorf("%s: %.2f CPU-seconds per second, above the limit %.1f (+25%%)", what, got, limit)
	}
	if got >= limit*0.75 && throttled == 0 {
		t.Errorf("%s: %.2f CPU-seconds per second and never throttled: no CFS quota holds it", what, got)
	}
	if got < limit*0.75 {
		if m.contended(m.rates[len(m.rates)-1]) {
			t.Logf("%s: %.2f CPU-seconds per second, under the limit, on a machine with none to spare: not checked", what, got)
			return
		}
		t.Errorf("%s: %.2f CPU-seconds per second, below the limit %.1f (-25%%) with CPU to spare", what, got, limit)
	}
}

// unlimited: two spinning goroutines with no limit take more than one core of two.
func (m cpuMeasure) unlimited(t *testing.T, got float64) {
	t.Helper()
	if got >= 0.8 {
		return
	}
	if m.contended(got) {
		t.Logf("no limit: %.2f CPU-seconds per second on a machine with none to spare: not checked", got)
		return
	}
	t.Errorf("no limit: %.2f CPU-seconds per second with %.2f CPUs idle, want ≥ 0.8", got, m.idle)
}

// cpuRates measures each pod's CPU-seconds per second (its container's cpuacct) and the
// machine's idle CPUs (/proc/stat) over d.
func (b *bed) cpuRates(t *testing.T, d time.Duration, uids ...types.UID) cpuMeasure {
	t.Helper()
	read := func() []time.Duration {
		var out []time.Duration
		for _, u := range uids {
			v, err := b.agent.ContainerCPUUsage(u, "app")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	throttled := func() []int64 {
		var out []int64
		for _, u := range uids {
			out = append(out, b.nrThrottled(t, u, "app"))
		}
		return out
	}
	t0, u0, th0, i0 := time.Now(), read(), throttled(), idleTicks(t)
	time.Sleep(d)
	u1, th1, i1, el := read(), throttled(), idleTicks(t), time.Since(t0)
	m := cpuMeasure{rates: make([]float64, len(uids)), throttled: make([]int64, len(uids)), idle: float64(i1-i0) / 100 / el.Seconds()} // USER_HZ
	for i := range uids {
		m.rates[i] = (u1[i] - u0[i]).Seconds() / el.Seconds()
		m.throttled[i] = th1[i] - th0[i]
	}
	return m
}

// nrThrottled is the container cgroup's nr_throttled (cpu.stat).
func (b *bed) nrThrottled(t *testing.T, uid types.UID, ctr string) int64 {
	t.Helper()
	p := filepath.Join(b.agent.cg.cpuRoot, PodCgroup(uid), ctr, "cpu.stat")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "nr_throttled "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", p, line, err)
			}
			return n
		}
	}
	t.Fatalf("%s: no nr_throttled in %q", p, data)
	return 0
}

// idleTicks is the machine's idle and iowait time so far, in USER_HZ ticks (/proc/stat's cpu line).
func idleTicks(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		t.Fatalf("/proc/stat: first line %q, want the cpu totals", line)
	}
	var sum int64
	for _, s := range f[4:6] { // idle, iowait
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("/proc/stat: %q: %v", line, err)
		}
		sum += n
	}
	return sum
}
