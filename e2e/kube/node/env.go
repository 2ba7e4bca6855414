package node

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// envSource reads what a container's env refers to. The kubelet reads the same objects (the Node
// authorizer lets a node read the ConfigMaps and Secrets of pods bound to it).
type envSource struct {
	client kubernetes.Interface
	// apiHost and apiPort are the kubernetes Service's address as pods see it. There is no
	// service VIP here: it is the API server's loopback address.
	apiHost, apiPort string
}

// containerEnv is the container's environment as the kubelet builds it (pkg/kubelet
// kubelet_pods.go makeEnvironmentVariables): service links first (when enableServiceLinks), the
// kubernetes Service's always, then envFrom, then env, each later entry overriding an earlier
// one of the same name, $(VAR) references expanded against what is defined before them.
func (s envSource) containerEnv(ctx context.Context, pod *corev1.Pod, c *corev1.Container) ([]string, error) {
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	svc, err := s.serviceEnv(ctx, pod)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(svc))
	for k := range svc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set(k, svc[k])
	}
	for _, ef := range c.EnvFrom {
		data, err := s.envFromData(ctx, pod.Namespace, ef)
		if err != nil {
			return nil, fmt.Errorf("container %s envFrom: %w", c.Name, err)
		}
		for k, v := range data {
			set(ef.Prefix+k, v)
		}
	}
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil {
			var err error
			if v, err = s.valueFrom(ctx, pod, c, e.ValueFrom); err != nil {
				return nil, fmt.Errorf("container %s env %s: %w", c.Name, e.Name, err)
			}
		} else {
			v = expand(v, vars)
		}
		set(e.Name, v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vars[k])
	}
	return out, nil
}

// serviceEnv are the docker-link style variables of every Service in the pod's namespace (when
// enableServiceLinks is unset or true) and of the kubernetes Service.
func (s envSource) serviceEnv(ctx context.Context, pod *corev1.Pod) (map[string]string, error) {
	out := map[string]string{
		"KUBERNETES_SERVICE_HOST":       s.apiHost,
		"KUBERNETES_SERVICE_PORT":       s.apiPort,
		"KUBERNETES_SERVICE_PORT_HTTPS": s.apiPort,
		"KUBERNETES_PORT":               "tcp://" + s.apiHost + ":" + s.apiPort,
	}
	if pod.Spec.EnableServiceLinks != nil && !*pod.Spec.EnableServiceLinks {
		return out, nil
	}
	list, err := s.client.CoreV1().Services(pod.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("service links: list services of %s: %w", pod.Namespace, err)
	}
	for _, svc := range list.Items {
		ip := svc.Spec.ClusterIP
		if ip == "" || ip == corev1.ClusterIPNone || len(svc.Spec.Ports) == 0 {
			continue
		}
		name := strings.ToUpper(strings.ReplaceAll(svc.Name, "-", "_"))
		first := svc.Spec.Ports[0]
		out[name+"_SERVICE_HOST"] = ip
		out[name+"_SERVICE_PORT"] = strconv.Itoa(int(first.Port))
		out[name+"_PORT"] = fmt.Sprintf("%s://%s:%d", strings.ToLower(string(first.Protocol)), ip, first.Port)
		for _, p := range svc.Spec.Ports {
			if p.Name != "" {
				out[name+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_"))] = strconv.Itoa(int(p.Port))
			}
			proto := strings.ToLower(string(p.Protocol))
			prefix := fmt.Sprintf("%s_PORT_%d_%s", name, p.Port, strings.ToUpper(proto))
			out[prefix] = fmt.Sprintf("%s://%s:%d", proto, ip, p.Port)
			out[prefix+"_PROTO"] = proto
			out[prefix+"_PORT"] = strconv.Itoa(int(p.Port))
			out[prefix+"_ADDR"] = ip
		}
	}
	return out, nil
}

func (s envSource) envFromData(ctx context.Context, ns string, ef corev1.EnvFromSource) (map[string]string, error) {
	switch {
	case ef.ConfigMapRef != nil:
		cm, err := configMap(ctx, s.client, ns, ef.ConfigMapRef.Name, ef.ConfigMapRef.Optional)
		if err != nil {
			return nil, err
		}
		return cm.Data, nil
	case ef.SecretRef != nil:
		sec, err := secret(ctx, s.client, ns, ef.SecretRef.Name, ef.SecretRef.Optional)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for k, v := range sec.Data {
			out[k] = string(v)
		}
		return out, nil
	}
	return nil, nil
}

func (s envSource) valueFrom(ctx context.Context, pod *corev1.Pod, c *corev1.Container, vf *corev1.EnvVarSource) (string, error) {
	switch {
	case vf.FieldRef != nil:
		return fieldValue(pod, vf.FieldRef.FieldPath)
	case vf.ResourceFieldRef != nil:
		return resourceValue(c, vf.ResourceFieldRef)
	case vf.ConfigMapKeyRef != nil:
		r := vf.ConfigMapKeyRef
		cm, err := configMap(ctx, s.client, pod.Namespace, r.Name, r.Optional)
		if err != nil {
			return "", err
		}
		if v, ok := cm.Data[r.Key]; ok || (r.Optional != nil && *r.Optional) {
			return v, nil
		}
		return "", fmt.Errorf("configMap %s has no key %s", r.Name, r.Key)
	case vf.SecretKeyRef != nil:
		r := vf.SecretKeyRef
		sec, err := secret(ctx, s.client, pod.Namespace, r.Name, r.Optional)
		if err != nil {
			return "", err
		}
		if v, ok := sec.Data[r.Key]; ok || (r.Optional != nil && *r.Optional) {
			return string(v), nil
		}
		return "", fmt.Errorf("secret %s has no key %s", r.Name, r.Key)
	}
	return "", fmt.Errorf("unsupported valueFrom")
}

// fieldValue is a downward API field of the pod.
func fieldValue(pod *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	case "status.podIPs":
		ips := make([]string, 0, len(pod.Status.PodIPs))
		for _, ip := range pod.Status.PodIPs {
			ips = append(ips, ip.IP)
		}
		return strings.Join(ips, ","), nil
	}
	for _, m := range []struct {
		prefix string
		values map[string]string
	}{{"metadata.labels", pod.Labels}, {"metadata.annotations", pod.Annotations}} {
		if strings.HasPrefix(path, m.prefix+"['") && strings.HasSuffix(path, "']") {
			return m.values[strings.TrimSuffix(strings.TrimPrefix(path, m.prefix+"['"), "']")], nil
		}
	}
	return "", fmt.Errorf("fieldRef %s: not supported by the test bed's node agent", path)
}

// resourceValue is a container's resource request or limit in the divisor's units, rounded up,
// as the kubelet's downward API gives it.
func resourceValue(c *corev1.Container, r *corev1.ResourceFieldSelector) (string, error) {
	kind, name, ok := strings.Cut(r.Resource, ".")
	if !ok {
		return "", fmt.Errorf("resourceFieldRef %s: want limits.X or requests.X", r.Resource)
	}
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		return "0", nil
	}
	div := r.Divisor
	if div.IsZero() {
		div = resource.MustParse("1")
	}
	if name == "cpu" {
		return strconv.FormatInt((q.MilliValue()+div.MilliValue()-1)/div.MilliValue(), 10), nil
	}
	return strconv.FormatInt((q.Value()+div.Value()-1)/div.Value(), 10), nil
}

// expand replaces $(VAR) with vars' value (kept as is when VAR is undefined); $$ escapes a $.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// expandAll expands $(VAR) in command or args against the container's final environment.
func expandAll(in []string, env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = expand(s, vars)
	}
	return out
}
