//go:build kube

package controlplane

import (
	"context"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStartStop brings the real control plane up, checks what helm and kubectl rely on (the
// version stamped at build, the default namespace's ServiceAccount and root CA made by the
// controllers), and that Stop leaves no process.
func TestStartStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cp, err := Start(ctx, Options{Dir: t.TempDir(), Nodes: []string{"n1"}})
	if err != nil {
		t.Fatal(err)
	}
	pids := cp.PIDs()
	defer func() {
		cp.Stop()
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil {
				t.Errorf("pid %d still running after Stop", pid)
			}
		}
	}()
	admin, err := cp.Client(UserAdmin)
	if err != nil {
		t.Fatal(err)
	}
	v, err := admin.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != "v1.36.1" || v.Major != "1" || v.Minor != "36" {
		t.Errorf("server version %+v: want v1.36.1, major 1, minor 36 (Helm's kubeVersion checks read it)", v)
	}
	// The serviceaccount and root-ca-cert-publisher controllers run: the default namespace gets
	// its ServiceAccount and kube-root-ca.crt.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, errSA := admin.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		_, errCA := admin.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		if errSA == nil && errCA == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("default ServiceAccount: %v; kube-root-ca.crt: %v", errSA, errCA)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A second start in the same dir (a study rerun with the same --work-dir) finds an empty
// cluster, not the first run's objects: the first run's release would make helm install fail.
func TestStartAgainInTheSameDirStartsEmpty(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	const ns = "left-by-the-first-run"
	for run := 1; run <= 2; run++ {
		cp, err := Start(ctx, Options{Dir: dir, Nodes: []string{"n1"}})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		admin, err := cp.Client(UserAdmin)
		if err != nil {
			cp.Stop()
			t.Fatal(err)
		}
		_, err = admin.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		switch {
		case run == 1:
			_, err = admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			if err != nil {
				t.Errorf("run 1: create namespace: %v", err)
			}
		case err == nil:
			t.Errorf("run 2: namespace %s of run 1 is still there", ns)
		case !apierrors.IsNotFound(err):
			t.Errorf("run 2: get namespace: %v", err)
		}
		cp.Stop()
	}
}
