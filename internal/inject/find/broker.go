package find

import (
	"fmt"
	"path"
	"strings"
)

// SidecarContainer is the chart's container name: a previous run's sidecar holds the CPU the
// boost gives back to (the broker's own CPU, which that run raised).
const SidecarContainer = "warmup-sidecar"

// Broker is a broker StatefulSet found in the manifests, with what inject needs from it.
type Broker struct {
	Index     int // position in the stream
	Name      string
	Container string // the broker's container (brokerContainerName, or the official chart's)
	match     brokerMatch
	Namespace string
	Labels    map[string]string // pod template labels
	Port      int               // the broker's query port, read from its container; 0: unknown
	Image     string            // the broker container's image reference
	ConfigMap ConfigRef         // where pinot-broker.conf lives; zero when not found

	// For brokerCpuBoost (internal/inject/boost).
	Replicas       int               // spec.replicas (1 when unset)
	ServiceAccount string            // the pod's serviceAccountName ("default" when unset)
	BrokerRes      Resources         // the broker container's resources
	OtherRes       []Resources       // every other container's, init containers too, but an earlier sidecar
	prevEnv        map[string]string // an earlier run's sidecar env (literal values)
}

// ConfigRef names a key of a ConfigMap.
type ConfigRef struct {
	Name, Key string
}

// newBrokerTarget reads the broker port and config location from the broker container. With
// urlGiven (warmup.brokerUrl set) the probes need no query port: one it cannot tell is 0.
func newBrokerTarget(index int, sts statefulSet, match brokerMatch, containerName string, urlGiven bool) (Broker, error) {
	t := Broker{
		Index:     index,
		Name:      sts.Metadata.Name,
		Container: containerName,
		match:     match,
		Namespace: sts.Metadata.Namespace,
		Labels:    sts.Spec.Template.Metadata.Labels,
	}
	pod := sts.Spec.Template.Spec
	var broker *container
	for i := range pod.Containers {
		if pod.Containers[i].Name == containerName {
			broker = &pod.Containers[i]
		}
	}
	if broker == nil {
		return t, fmt.Errorf("StatefulSet %s has the broker pod labels but no container named %q (set brokerContainerName)", t.Name, containerName)
	}
	p, err := brokerPort(*broker)
	if err != nil && !urlGiven {
		return t, fmt.Errorf("StatefulSet %s: %w; set warmup.brokerUrl (the broker URL the sidecar probes, e.g. http://127.0.0.1:8099) to do without it", t.Name, err)
	}
	t.Port = p
	t.Image = broker.Image
	t.ConfigMap = brokerConfigRef(*broker, pod.Volumes)
	t.Replicas = 1
	if sts.Spec.Replicas != nil {
		t.Replicas = *sts.Spec.Replicas
	}
	t.ServiceAccount = pod.ServiceAccountName
	if t.ServiceAccount == "" {
		t.ServiceAccount = "default"
	}
	t.BrokerRes = broker.Resources
	t.prevEnv = map[string]string{}
	for _, c := range append(append([]container{}, pod.Containers...), pod.InitContainers...) {
		switch c.Name {
		case containerName:
		case SidecarContainer:
			for _, e := range c.Env {
				t.prevEnv[e.Name] = e.Value
			}
		default:
			t.OtherRes = append(t.OtherRes, c.Resources)
		}
	}
	return t, nil
}

// brokerPort is the broker's query port: the container port named "broker" (official chart),
// else the port its httpGet probes use, else its only container port. The official chart puts
// broker.service.port in all of these, so a customised port (8199) is picked up either way.
func brokerPort(c container) (int, error) {
	named := map[string]int{}
	for _, p := range c.Ports {
		named[p.Name] = p.ContainerPort
	}
	if p, ok := named["broker"]; ok && p > 0 {
		return p, nil
	}
	for _, pr := range []*probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
		if pr == nil || pr.HTTPGet == nil {
			continue
		}
		switch v := pr.HTTPGet.Port.(type) {
		case int:
			return v, nil
		case string:
			if p, ok := named[v]; ok {
				return p, nil
			}
		}
	}
	if len(c.Ports) == 1 && c.Ports[0].ContainerPort > 0 {
		return c.Ports[0].ContainerPort, nil
	}
	return 0, fmt.Errorf("cannot tell the query port of container %q: no port named \"broker\", no httpGet probe, and not exactly one container port", c.Name)
}

// brokerConfigRef finds the ConfigMap key behind "-configFileName <path>" in the broker's args
// (how the official chart starts the broker): the volume mounted at that path's directory.
func brokerConfigRef(c container, volumes []volume) ConfigRef {
	file := ""
	args := append(append([]string{}, c.Command...), c.Args...)
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-configFileName" {
			file = args[i+1]
		}
	}
	if file == "" {
		return ConfigRef{}
	}
	for _, m := range c.VolumeMounts {
		dir := strings.TrimSuffix(m.MountPath, "/")
		if m.SubPath != "" || path.Dir(file) != dir {
			continue
		}
		rel := path.Base(file)
		for _, v := range volumes {
			if v.Name != m.Name || v.ConfigMap == nil {
				continue
			}
			key := rel
			for _, it := range v.ConfigMap.Items {
				if it.Path == rel {
					key = it.Key
				}
			}
			return ConfigRef{Name: v.ConfigMap.Name, Key: key}
		}
	}
	return ConfigRef{}
}

// CPU is the broker container's CPU as configured: what the boost gives back to.
type CPU struct{ Request, Limit string }

// ConfiguredCPU is the broker container's CPU before any boost: its resources, or where an
// earlier run of inject already boosted it, the CPU that run's sidecar gives back to.
func (t Broker) ConfiguredCPU() CPU {
	c := CPU{Request: t.BrokerRes.Requests["cpu"], Limit: t.BrokerRes.Limits["cpu"]}
	if v, ok := t.prevEnv["WARMUP_CPU_BOOST_TARGET_REQUEST"]; ok {
		c.Request = v
	}
	if v, ok := t.prevEnv["WARMUP_CPU_BOOST_TARGET_LIMIT"]; ok {
		c.Limit = v
	}
	return c
}
