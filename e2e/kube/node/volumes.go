package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
)

// volumes materializes a pod's volumes as directories under the pod's dir, as the kubelet's volume
// plugins do under /var/lib/kubelet/pods/<uid>/volumes: configMap, secret, downwardAPI and
// projected (service account token, configMap, secret, downwardAPI) are written once at pod
// start (not refreshed); emptyDir is an empty directory; hostPath is rooted in the node's dir (a
// test bed must not write the machine's paths). Other kinds (persistentVolumeClaim, …) refuse the
// pod with the reason.
type volumes struct {
	client  kubernetes.Interface
	nodeDir string
}

// materialize writes every volume of pod under dir and returns each volume's host directory.
func (v volumes) materialize(ctx context.Context, pod *corev1.Pod, dir string) (map[string]string, error) {
	out := map[string]string{}
	for _, vol := range pod.Spec.Volumes {
		d := filepath.Join(dir, "volumes", vol.Name)
		var err error
		switch src := vol.VolumeSource; {
		case src.EmptyDir != nil:
			err = os.MkdirAll(d, 0o777)
		case src.HostPath != nil:
			d = filepath.Join(v.nodeDir, "hostpath", filepath.Clean("/"+src.HostPath.Path))
			err = os.MkdirAll(d, 0o777)
		case src.ConfigMap != nil:
			err = v.configMap(ctx, pod.Namespace, src.ConfigMap.Name, src.ConfigMap.Items, src.ConfigMap.Optional, d)
		case src.Secret != nil:
			err = v.secret(ctx, pod.Namespace, src.Secret.SecretName, src.Secret.Items, src.Secret.Optional, d)
		case src.DownwardAPI != nil:
			err = downward(pod, src.DownwardAPI.Items, d)
		case src.Projected != nil:
			err = v.projected(ctx, pod, src.Projected, d)
		default:
			return nil, fmt.Errorf("volume %s: only emptyDir, hostPath, configMap, secret, downwardAPI and projected volumes run on the test bed", vol.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("volume %s: %w", vol.Name, err)
		}
		out[vol.Name] = d
	}
	return out, nil
}

// mounts are a container's volume mounts on the host (subPath included).
func mounts(c *corev1.Container, vols map[string]string) ([]launch.Mount, error) {
	var out []launch.Mount
	for _, m := range c.VolumeMounts {
		d, ok := vols[m.Name]
		if !ok {
			return nil, fmt.Errorf("container %s mounts volume %s, which the pod does not have", c.Name, m.Name)
		}
		if m.SubPath != "" {
			d = filepath.Join(d, filepath.Clean("/"+m.SubPath))
		}
		out = append(out, launch.Mount{Path: m.MountPath, HostPath: d, ReadOnly: m.ReadOnly})
	}
	return out, nil
}

func writeItems(dir string, data map[string][]byte, items []corev1.KeyToPath) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(items) == 0 {
		for k := range data {
			items = append(items, corev1.KeyToPath{Key: k, Path: k})
		}
	}
	for _, it := range items {
		b, ok := data[it.Key]
		if !ok {
			return fmt.Errorf("no key %s", it.Key)
		}
		p := filepath.Join(dir, filepath.Clean("/"+it.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (v volumes) configMap(ctx context.Context, ns, name string, items []corev1.KeyToPath, optional *bool, dir string) error {
	cm, err := configMap(ctx, v.client, ns, name, optional)
	if err != nil {
		return err
	}
	if cm.Name == "" { // an optional one that is missing: an empty volume
		return os.MkdirAll(dir, 0o755)
	}
	data := map[string][]byte{}
	for k, s := range cm.Data {
		data[k] = []byte(s)
	}
	for k, b := range cm.BinaryData {
		data[k] = b
	}
	return writeItems(dir, data, items)
}

func (v volumes) secret(ctx context.Context, ns, name string, items []corev1.KeyToPath, optional *bool, dir string) error {
	sec, err := secret(ctx, v.client, ns, name, optional)
	if err != nil {
		return err
	}
	if sec.Name == "" { // an optional one that is missing: an empty volume
		return os.MkdirAll(dir, 0o755)
	}
	return writeItems(dir, sec.Data, items)
}

func downward(pod *corev1.Pod, items []corev1.DownwardAPIVolumeFile, dir string) error {
	data := map[string][]byte{}
	var keys []corev1.KeyToPath
	for _, it := range items {
		if it.FieldRef == nil {
			return fmt.Errorf("downwardAPI %s: only fieldRef items run on the test bed", it.Path)
		}
		val, err := fieldValue(pod, it.FieldRef.FieldPath)
		if err != nil {
			return err
		}
		data[it.Path] = []byte(val)
		keys = append(keys, corev1.KeyToPath{Key: it.Path, Path: it.Path})
	}
	return writeItems(dir, data, keys)
}

// projected writes each source into the one directory, the service account token asked of the
// API server bound to the pod (TokenRequest), as the kubelet's token manager does.
func (v volumes) projected(ctx context.Context, pod *corev1.Pod, p *corev1.ProjectedVolumeSource, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, src := range p.Sources {
		var err error
		switch {
		case src.ServiceAccountToken != nil:
			err = v.token(ctx, pod, src.ServiceAccountToken, dir)
		case src.ConfigMap != nil:
			err = v.configMap(ctx, pod.Namespace, src.ConfigMap.Name, src.ConfigMap.Items, src.ConfigMap.Optional, dir)
		case src.Secret != nil:
			err = v.secret(ctx, pod.Namespace, src.Secret.Name, src.Secret.Items, src.Secret.Optional, dir)
		case src.DownwardAPI != nil:
			err = downward(pod, src.DownwardAPI.Items, dir)
		default:
			err = fmt.Errorf("a projected source the test bed does not run")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (v volumes) token(ctx context.Context, pod *corev1.Pod, s *corev1.ServiceAccountTokenProjection, dir string) error {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: s.ExpirationSeconds,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}
	if s.Audience != "" {
		req.Spec.Audiences = []string{s.Audience}
	}
	tr, err := v.client.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token of service account %s: %w", sa, err)
	}
	p := filepath.Join(dir, filepath.Clean("/"+s.Path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(strings.TrimSpace(tr.Status.Token)), 0o600)
}
