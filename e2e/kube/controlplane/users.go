package controlplane

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// User is one identity of the test bed, authenticated by a static bearer token (the API server's
// --token-auth-file). Each component gets the identity its real counterpart has, so RBAC and the
// Node authorizer judge it as they would in a cluster.
type User struct {
	Name   string
	Groups []string
	Token  string
	// Kubeconfig is a kubeconfig file for this user, written by Start.
	Kubeconfig string
}

// Identities the test bed's components use.
const (
	UserAdmin             = "admin" // in system:masters: the operator running helm and kubectl
	UserControllerManager = "system:kube-controller-manager"
	UserScheduler         = "system:kube-scheduler"
	UserProxy             = "system:kube-proxy"
)

// NodeUser is the kubelet identity of a node, which the Node authorizer recognises.
func NodeUser(node string) string { return "system:node:" + node }

func newUser(name string, groups ...string) (*User, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("token for %s: %w", name, err)
	}
	return &User{Name: name, Groups: groups, Token: hex.EncodeToString(b)}, nil
}

// writeTokenFile writes the API server's static token file: token,user,uid,"group1,group2".
func writeTokenFile(path string, users []*User) error {
	var b strings.Builder
	for i, u := range users {
		fmt.Fprintf(&b, "%s,%s,uid-%d,%q\n", u.Token, u.Name, i, strings.Join(u.Groups, ","))
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// writeKubeconfig writes a kubeconfig for u against server, trusting caFile.
func writeKubeconfig(dir string, u *User, server, caFile string) error {
	name := strings.NewReplacer(":", "-", "/", "-").Replace(u.Name)
	u.Kubeconfig = filepath.Join(dir, name+".kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: testbed
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: testbed
  context:
    cluster: testbed
    user: %s
    namespace: default
current-context: testbed
`, server, caFile, u.Name, u.Token, u.Name)
	if err := os.WriteFile(u.Kubeconfig, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("kubeconfig for %s: %w", u.Name, err)
	}
	return nil
}
