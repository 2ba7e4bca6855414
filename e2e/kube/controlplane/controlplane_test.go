//go:build kube

package controlplane

import (
	"context"
	"syscall"
	"testing"
	"time"

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
