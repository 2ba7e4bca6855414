package rollout

import (
	"fmt"
	"strings"
)

// PlatformSection is the test bed's versions and each group's CPU: at the calibration's capacity
// and in every event's steady window ("" for a study made before the test bed).
func PlatformSection(s *Study) string {
	p := s.Platform
	if p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Platform\n\n")
	fmt.Fprintf(&b, "Kubernetes %s, etcd %s, helm %s, chart %s; node %s: %s CPU, %s memory; broker container CPU request %s, limit %s",
		p.Kubernetes, p.Etcd, p.Helm, p.Chart, p.Node.Name, p.Node.CPU, p.Node.Memory, orNone(p.Broker.CPURequest), orNone(p.Broker.CPULimit))
	if p.Sidecar != nil {
		fmt.Fprintf(&b, "; sidecar container CPU request %s, limit %s", orNone(p.Sidecar.CPURequest), orNone(p.Sidecar.CPULimit))
	}
	b.WriteString(". CPU in cores (CPU seconds per second): each broker pod's from its cgroup, the other groups' from /proc/<pid>/stat, the machine's from /proc/stat.\n\n")
	type row struct {
		name string
		w    CPUWindow
	}
	var rows []row
	if c := p.CapacityCPU; c != nil {
		milli, _ := milliCPU(p.Node.CPU)
		b.WriteString("- " + c.Note(float64(milli)/1000) + ".\n\n")
		rows = append(rows, row{"capacity: " + c.Event, *c})
	}
	for _, w := range p.SteadyCPU {
		rows = append(rows, row{"steady: " + w.Event, w})
	}
	if len(rows) == 0 {
		return b.String()
	}
	b.WriteString("| window | QPS | broker pods (limit) | harness (servers, ZooKeeper, controller) | control plane | HAProxy | Java client | this process (load, node agent, proxy) | machine |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		w := r.w
		g := map[string]float64{}
		for _, x := range w.Groups {
			g[x.Name] = x.Cores
		}
		limit := "none"
		if w.BrokersLimit > 0 {
			limit = fmt.Sprintf("%.2f", w.BrokersLimit)
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.2f (%s) | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", r.name, w.QPS, w.Brokers, limit,
			g[GroupHarness], g[GroupControlPlane], g[GroupHAProxy], g[GroupJavaClient], g[GroupSelf], w.Machine)
	}
	return b.String()
}
