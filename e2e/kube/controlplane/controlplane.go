// Package controlplane runs a real Kubernetes control plane on loopback, as envtest does: etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler, built from source by
// scripts/install-kube.sh. Each is a process this package starts, waits for on its health
// endpoint and stops; everything lives in one directory the caller owns. docs/testbed.md says
// which flags and controllers run and why.
package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Controllers are the controller manager's controllers the test bed runs: what rolls and serves
// the official chart's objects (StatefulSet, Service, ConfigMap, ServiceAccount,
// PodDisruptionBudget), cleans up after them (garbage collector, namespace), gives namespaces
// their default ServiceAccount and kube-root-ca.crt (which projected service account volumes
// read), and keeps the node's taints (node-lifecycle, fed by the node agent's Lease).
var Controllers = []string{
	"statefulset-controller", "endpointslice-controller", "garbage-collector-controller",
	"namespace-controller", "serviceaccount-controller", "root-ca-certificate-publisher-controller",
	"disruption-controller", "node-lifecycle-controller", "taint-eviction-controller",
	"pod-garbage-collector-controller", "replicaset-controller", "deployment-controller",
}

// ServiceCIDR is the cluster IP range; its first address is the kubernetes Service's.
const ServiceCIDR = "10.96.0.0/16"

// Options configure Start.
type Options struct {
	Dir    string // everything the control plane writes; the caller removes it
	BinDir string // "" = Binaries()
	// Nodes are the node names to issue kubelet identities for.
	Nodes []string
	Log   *slog.Logger
}

// ControlPlane is a running control plane.
type ControlPlane struct {
	Server string // https://127.0.0.1:<port>
	CAFile string
	BinDir string
	Users  map[string]*User // by user name
	dir    string
	comps  []*component // in start order
}

// Start brings the control plane up and returns once the API server is ready and the
// controller manager and scheduler answer their health checks.
func Start(ctx context.Context, o Options) (_ *ControlPlane, err error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	bin := o.BinDir
	if bin == "" {
		if bin, err = Binaries(); err != nil {
			return nil, err
		}
	}
	cp := &ControlPlane{BinDir: bin, Users: map[string]*User{}, dir: o.Dir}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()
	// A work dir kept from an earlier run (a study's --work-dir) holds that run's etcd, whose
	// objects (a helm release, pods) this run would inherit: the cluster starts empty, as
	// envtest's does. Its logs are kept (appended to).
	if err := os.RemoveAll(filepath.Join(o.Dir, "etcd")); err != nil {
		return nil, fmt.Errorf("control plane dir: an earlier run's etcd data: %w", err)
	}
	for _, d := range []string{"pki", "etcd", "logs", "kubeconfig"} {
		if err := os.MkdirAll(filepath.Join(o.Dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("control plane dir: %w", err)
		}
	}
	_, svcNet, _ := net.ParseCIDR(ServiceCIDR)
	kubeSvcIP := append(net.IP(nil), svcNet.IP.To4()...)
	kubeSvcIP[3] = 1
	p, err := writePKI(filepath.Join(o.Dir, "pki"), kubeSvcIP)
	if err != nil {
		return nil, fmt.Errorf("control plane PKI: %w", err)
	}
	cp.CAFile = p.CAFile

	var users []*User
	add := func(name string, groups ...string) error {
		u, err := newUser(name, groups...)
		if err != nil {
			return err
		}
		cp.Users[name] = u
		users = append(users, u)
		return nil
	}
	if err := add(UserAdmin, "system:masters"); err != nil {
		return nil, err
	}
	for _, n := range []string{UserControllerManager, UserScheduler, UserProxy} {
		if err := add(n); err != nil {
			return nil, err
		}
	}
	for _, node := range o.Nodes {
		if err := add(NodeUser(node), "system:nodes"); err != nil {
			return nil, err
		}
	}
	tokens := filepath.Join(o.Dir, "pki", "tokens.csv")
	if err := writeTokenFile(tokens, users); err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}

	ports := map[string]int{}
	for _, n := range []string{"etcd", "etcd-peer", "apiserver", "controller-manager", "scheduler"} {
		if ports[n], err = freePort(); err != nil {
			return nil, err
		}
	}
	logs := func(n string) string { return filepath.Join(o.Dir, "logs", n+".log") }
	insecure, err := tlsClient("")
	if err != nil {
		return nil, err
	}

	etcdURL := loopbackURL("http", ports["etcd"])
	peerURL := loopbackURL("http", ports["etcd-peer"])
	start := time.Now()
	c, err := startComponent(ctx, "etcd", []string{filepath.Join(bin, "etcd"),
		"--name=testbed", "--data-dir=" + filepath.Join(o.Dir, "etcd"),
		"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=testbed=" + peerURL,
		"--unsafe-no-fsync", // a test bed's etcd: durability buys nothing, fsync costs seconds
		"--log-level=warn",
	}, logs("etcd"), etcdURL+"/health", insecure)
	if err != nil {
		return nil, err
	}
	cp.comps = append(cp.comps, c)

	cp.Server = loopbackURL("https", ports["apiserver"])
	ca, err := tlsClient(p.CAFile)
	if err != nil {
		return nil, err
	}
	c, err = startComponent(ctx, "kube-apiserver", []string{filepath.Join(bin, "kube-apiserver"),
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(ports["apiserver"]),
		// Else it takes the default route's address for the kubernetes Service's endpoint.
		"--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
		"--tls-cert-file=" + p.CertFile, "--tls-private-key-file=" + p.KeyFile,
		"--token-auth-file=" + tokens,
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.SAPubFile, "--service-account-signing-key-file=" + p.SAKeyFile,
		"--service-cluster-ip-range=" + ServiceCIDR,
		"--profiling=false", "--v=1",
	}, logs("kube-apiserver"), cp.Server+"/readyz", ca)
	if err != nil {
		return nil, err
	}
	cp.comps = append(cp.comps, c)
	for _, u := range users {
		if err := writeKubeconfig(filepath.Join(o.Dir, "kubeconfig"), u, cp.Server, p.CAFile); err != nil {
			return nil, err
		}
	}

	c, err = startComponent(ctx, "kube-controller-manager", []string{filepath.Join(bin, "kube-controller-manager"),
		"--kubeconfig=" + cp.Users[UserControllerManager].Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(ports["controller-manager"]),
		"--cert-dir=" + filepath.Join(o.Dir, "pki", "controller-manager"),
		"--controllers=" + strings.Join(Controllers, ","),
		"--use-service-account-credentials", // each controller acts as its own ServiceAccount, as in a cluster
		"--root-ca-file=" + p.CAFile,
		"--leader-elect=false", "--profiling=false", "--v=1",
	}, logs("kube-controller-manager"), loopbackURL("https", ports["controller-manager"])+"/healthz", insecure)
	if err != nil {
		return nil, err
	}
	cp.comps = append(cp.comps, c)

	c, err = startComponent(ctx, "kube-scheduler", []string{filepath.Join(bin, "kube-scheduler"),
		"--kubeconfig=" + cp.Users[UserScheduler].Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(ports["scheduler"]),
		"--cert-dir=" + filepath.Join(o.Dir, "pki", "scheduler"),
		"--leader-elect=false", "--profiling=false", "--v=1",
	}, logs("kube-scheduler"), loopbackURL("https", ports["scheduler"])+"/healthz", insecure)
	if err != nil {
		return nil, err
	}
	cp.comps = append(cp.comps, c)
	o.Log.Info("control plane ready", "server", cp.Server, "took", time.Since(start).Round(time.Millisecond))
	return cp, nil
}

// Stop stops every component, newest first. Safe to call twice.
func (cp *ControlPlane) Stop() {
	for i := len(cp.comps) - 1; i >= 0; i-- {
		cp.comps[i].stop()
	}
	cp.comps = nil
}

// PIDs are the running components' process ids (tests check none outlives Stop).
func (cp *ControlPlane) PIDs() []int {
	var pids []int
	for _, c := range cp.comps {
		pids = append(pids, c.p.PID())
	}
	return pids
}

// Kubeconfig is user's kubeconfig file.
func (cp *ControlPlane) Kubeconfig(user string) string { return cp.Users[user].Kubeconfig }

// RESTConfig is a client config for user.
func (cp *ControlPlane) RESTConfig(user string) (*rest.Config, error) {
	u, ok := cp.Users[user]
	if !ok {
		return nil, fmt.Errorf("no test bed user %q", user)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", u.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig of %s: %w", user, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, nil
}

// Client is a clientset for user.
func (cp *ControlPlane) Client(user string) (kubernetes.Interface, error) {
	cfg, err := cp.RESTConfig(user)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// Kubectl is the built kubectl's path.
func (cp *ControlPlane) Kubectl() string { return filepath.Join(cp.BinDir, "kubectl") }

// LogPath is a component's log file.
func (cp *ControlPlane) LogPath(component string) string {
	return filepath.Join(cp.dir, "logs", component+".log")
}
