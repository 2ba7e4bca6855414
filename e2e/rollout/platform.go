package rollout

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/testbed"
)

// Platform is what the study ran on: the test bed's versions, the chart, the node, the pods'
// CPU and the StatefulSet as the API server holds it, and the CPU each group of processes used.
type Platform struct {
	Kubernetes string `json:"kubernetes_version"` // the API server's /version
	Etcd       string `json:"etcd_version"`
	Helm       string `json:"helm_version"`
	Chart      string `json:"chart"` // the official chart: name, version, appVersion, file
	// SidecarRoute is how the ON arms got the sidecar; PostRenderer the route of studies before
	// the values route (warmup-inject as helm's post-renderer), kept as they recorded it.
	SidecarRoute string `json:"sidecar_route,omitempty"`
	PostRenderer string `json:"post_renderer,omitempty"`
	// DecidedByDefault is the chart's brokerReadiness.decidedBy default the ON arms ran with but
	// on_fast ("" in studies before auto, when it was chart).
	DecidedByDefault string `json:"decided_by_default,omitempty"`
	Node             Node   `json:"node"`
	// Broker and Sidecar are the containers' CPU as the StatefulSet's pod template has them
	// (Sidecar once an ON arm ran).
	Broker  Resources  `json:"broker_cpu"`
	Sidecar *Resources `json:"sidecar_cpu,omitempty"`
	// StatefulSet is the broker StatefulSet's settings that pace a rollout.
	StatefulSet StatefulSetSpec `json:"statefulset"`
	// ProxyMinSyncS is the service proxy's minimum sync period (kube-proxy's default 1 s).
	ProxyMinSyncS float64 `json:"proxy_min_sync_s"`
	// CapacityCPU is each group's CPU at the calibration's capacity (the closed loop at the
	// concurrency that gave it, once more): what bounds the fleet's capacity.
	CapacityCPU *CPUWindow `json:"capacity_cpu,omitempty"`
	// SteadyCPU is each group's CPU in every event's steady window.
	SteadyCPU []CPUWindow `json:"steady_cpu"`
}

// Node is the test bed's one node as the API server has it.
type Node struct {
	Name   string `json:"name"`
	CPU    string `json:"cpu"` // capacity = allocatable
	Memory string `json:"memory"`
}

// Resources are a container's CPU request and limit ("" when unset: the report says none).
type Resources struct {
	CPURequest string `json:"cpu_request"`
	CPULimit   string `json:"cpu_limit"`
}

// StatefulSetSpec is what the chart renders for the broker StatefulSet.
type StatefulSetSpec struct {
	PodManagementPolicy string  `json:"pod_management_policy"`
	UpdateStrategy      string  `json:"update_strategy"`
	TerminationGraceS   float64 `json:"termination_grace_s"`
	MinReadyS           float64 `json:"min_ready_s"`
	// BrokerProbe is the broker's readiness probe as the install rendered it (the off arm's: the
	// chart's values), SidecarProbe the sidecar's in the first ON arm; each arm's own are
	// Arm.BrokerProbe and Arm.SidecarProbe. (Studies before those were recorded kept here the
	// last event's.)
	BrokerProbe    ProbeJSON  `json:"broker_readiness_probe"`
	SidecarProbe   *ProbeJSON `json:"sidecar_readiness_probe,omitempty"`
	BrokerJavaOpts string     `json:"broker_java_opts"` // the off arm's JAVA_OPTS
}

// ProbeJSON is a readiness probe in seconds.
type ProbeJSON struct {
	InitialDelayS float64 `json:"initial_delay_s"`
	PeriodS       float64 `json:"period_s"`
	TimeoutS      float64 `json:"timeout_s"`
	Success       int     `json:"success"`
	Failure       int     `json:"failure"`
}

func probeJSON(p *corev1.Probe) ProbeJSON {
	if p == nil {
		return ProbeJSON{}
	}
	return ProbeJSON{float64(p.InitialDelaySeconds), float64(p.PeriodSeconds), float64(p.TimeoutSeconds),
		int(p.SuccessThreshold), int(p.FailureThreshold)}
}

func resourcesOf(c corev1.Container) Resources {
	var r Resources
	if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
		r.CPURequest = q.String()
	}
	if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
		r.CPULimit = q.String()
	}
	return r
}

// platform reads the versions, the chart and the node.
func (b *bed) platform(ctx context.Context) (*Platform, error) {
	sidecarChart, err := readChartValues()
	if err != nil {
		return nil, err
	}
	p := &Platform{DecidedByDefault: sidecarChart.BrokerReadiness.DecidedBy, SidecarRoute: "helm template of the release | warmup-inject values (this tree) -f <the arm's values> " +
		"--companion, then helm upgrade of the official chart with -f <its values> last and of this project's chart beside it with the companion's; " +
		"the event is timed from that upgrade",
		ProxyMinSyncS: b.cfg.ProxySync.Seconds()}
	v, err := b.Admin.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("the API server's version: %w", err)
	}
	p.Kubernetes = v.GitVersion
	out, err := exec.CommandContext(ctx, filepath.Join(b.CP.BinDir, "etcd"), "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("etcd --version: %w", err)
	}
	p.Etcd = topLevel(string(out), "etcd Version: ")
	if out, err := b.helm.Run(ctx, "version", "--short"); err != nil {
		return nil, err
	} else {
		p.Helm = strings.TrimSpace(out)
	}
	chart, err := b.helm.Run(ctx, "show", "chart", b.helm.Chart)
	if err != nil {
		return nil, err
	}
	p.Chart = fmt.Sprintf("%s %s (appVersion %s), %s", topLevel(chart, "name: "), topLevel(chart, "version: "),
		topLevel(chart, "appVersion: "), filepath.Base(b.helm.Chart))
	n, err := b.Admin.CoreV1().Nodes().Get(ctx, testbed.NodeName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("the test bed's node: %w", err)
	}
	cpu, mem := n.Status.Capacity[corev1.ResourceCPU], n.Status.Capacity[corev1.ResourceMemory]
	p.Node = Node{Name: n.Name, CPU: cpu.String(), Memory: mem.String()}
	_, _, err = b.describe(ctx, p, true)
	return p, err
}

// describe records the broker StatefulSet's pod template as the API server has it now: the
// containers' CPU, the probes, the pacing settings. The broker's CPU, readiness probe and JAVA_OPTS
// are kept from the first read, the install's (the off arm's: the chart's values); the sidecar's
// from the first ON arm's on the study's own broker CPU (fleetCPU: an arm with its own, such as
// on_boost_300m, gives its sidecar the request that follows its broker's, not the study's). It
// returns the broker's and the sidecar's readiness probes as they are now (the arm's; sidecar nil:
// none).
func (b *bed) describe(ctx context.Context, p *Platform, fleetCPU bool) (broker ProbeJSON, sidecar *ProbeJSON, err error) {
	sts, err := b.Admin.AppsV1().StatefulSets(namespace).Get(ctx, brokerSTS, metav1.GetOptions{})
	if err != nil {
		return ProbeJSON{}, nil, fmt.Errorf("the broker StatefulSet: %w", err)
	}
	s := &p.StatefulSet
	s.PodManagementPolicy = string(sts.Spec.PodManagementPolicy)
	s.UpdateStrategy = string(sts.Spec.UpdateStrategy.Type)
	s.MinReadyS = float64(sts.Spec.MinReadySeconds)
	spec := sts.Spec.Template.Spec
	if g := spec.TerminationGracePeriodSeconds; g != nil {
		s.TerminationGraceS = float64(*g)
	}
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		switch c.Name {
		case brokerCtr:
			broker = probeJSON(c.ReadinessProbe)
			if !b.described { // the install's: on_boost raises the CPU, the fast arms shorten the probe
				p.Broker, s.BrokerProbe = resourcesOf(c), probeJSON(c.ReadinessProbe)
			}
			if s.BrokerJavaOpts == "" {
				for _, e := range c.Env {
					if e.Name == "JAVA_OPTS" {
						s.BrokerJavaOpts = e.Value
					}
				}
			}
		case sidecarCtr:
			r, pr := resourcesOf(c), probeJSON(c.ReadinessProbe)
			sidecar = &pr
			if fleetCPU && p.Sidecar == nil {
				p.Sidecar = &r
			}
			if s.SidecarProbe == nil {
				s.SidecarProbe = &pr
			}
		}
	}
	b.described = true
	return broker, sidecar, nil
}

// topLevel is the value of the first line that starts with prefix (not indented: in Chart.yaml
// the chart's own keys, not its dependencies').
func topLevel(s, prefix string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// milliCPU parses a CPU quantity ("500m", "1"); "" is 0.
func milliCPU(q string) (int64, error) {
	if q == "" {
		return 0, nil
	}
	v, err := resource.ParseQuantity(q)
	if err != nil {
		return 0, err
	}
	return v.MilliValue(), nil
}
