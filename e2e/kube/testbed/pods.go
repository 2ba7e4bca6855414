package testbed

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pods are the namespace's pods matching selector, by name.
func (b *Bed) Pods(ctx context.Context, namespace, selector string) ([]corev1.Pod, error) {
	l, err := b.Admin.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list pods %s in %s: %w", selector, namespace, err)
	}
	sort.Slice(l.Items, func(i, j int) bool { return l.Items[i].Name < l.Items[j].Name })
	return l.Items, nil
}

// Ready says whether the pod's Ready condition is True.
func Ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// PodURL is where a pod's container port is served here: http://127.0.0.1:<host port>.
func (b *Bed) PodURL(p *corev1.Pod, port int32) (string, error) {
	addr, ok := b.Net.Lookup(p.Status.PodIP, port)
	if !ok {
		return "", fmt.Errorf("pod %s (%s) has no port %d", p.Name, p.Status.PodIP, port)
	}
	return "http://" + addr, nil
}

// Get fetches url (a pod's endpoint), returning status and body.
func Get(ctx context.Context, url string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(body), err
}

// WaitFor polls f every 250 ms until it is true or d passes; the error quotes f's last word.
func WaitFor(ctx context.Context, what string, d time.Duration, f func() (bool, string)) error {
	deadline := time.Now().Add(d)
	last := ""
	for {
		ok, why := f()
		if ok {
			return nil
		}
		last = why
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %s: %s", what, d, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (%s)", what, ctx.Err(), last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Kubectl runs the control plane's kubectl with the operator's kubeconfig.
func (b *Bed) Kubectl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, b.CP.Kubectl(), append([]string{"--kubeconfig", b.Kubeconfig()}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}
