//go:build kube

package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/haproxy"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/controlplane"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// syncBuffer is a log the proxy's goroutine writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The proxy on the real control plane, as kube-proxy's identity, programming a real HAProxy: the
// Service and its EndpointSlices are written by hand as admin, as the endpointslice controller
// writes them, and every step waits for HAProxy's "show stat" to show kube-proxy's choice.
func TestProxyOnARealControlPlane(t *testing.T) {
	if _, err := haproxy.Find(""); err != nil {
		t.Skip(err)
	}
	// Run's goroutines and the test's own end with the test; client-go's connection pool to the
	// API server is the transport's, shared and kept by design.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*http2ClientConn).readLoop"),
		goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*ClientConn).readLoop"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{Dir: t.TempDir(), Nodes: []string{"n1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	admin, err := cp.Client(controlplane.UserAdmin)
	if err != nil {
		t.Fatal(err)
	}
	asProxy, err := cp.Client(controlplane.UserProxy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The chart's broker Service, without a selector so the endpointslice controller leaves its
	// slices to the test.
	svc := brokerService()
	svc.Spec.ClusterIP = ""
	if _, err := admin.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Three broker pods on the pod network, each served by a loopback HTTP server answering its
	// name at its translated port.
	pods := podnet.New(freeBase(t), 4)
	type pod struct{ ip, target string }
	pp := map[string]pod{}
	for _, name := range []string{"b0", "b1", "b2"} {
		p, err := pods.Pod(ns, name)
		if err != nil {
			t.Fatal(err)
		}
		hp, err := p.HostPort(8099)
		if err != nil {
			t.Fatal(err)
		}
		target := fmt.Sprintf("127.0.0.1:%d", hp)
		l, err := net.Listen("tcp", target)
		if err != nil {
			t.Fatalf("pod %s's server at %s: %v", name, target, err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, name) })}
		go srv.Serve(l)
		defer srv.Close()
		pp[name] = pod{ip: p.IP, target: target}
	}

	lb, err := haproxy.Start(ctx, haproxy.Options{WorkDir: t.TempDir(), Listen: freeAddr(t), Backends: Backends(4),
		SlowStart: 30 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Stop()
	var logs syncBuffer
	defer func() {
		if t.Failed() {
			t.Logf("proxy log:\n%s", logs.String())
		}
	}()
	p, err := New(Options{Client: asProxy, Namespace: ns, Service: "pinot-broker", PortName: "broker",
		Balancer: lb, Slots: 4, Lookup: pods.Lookup, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var g errgroup.Group
	g.Go(func() error { return p.Run(runCtx) })
	defer func() { stop(); _ = g.Wait() }() // also when a step fails, before goleak looks
	select {
	case <-p.Synced():
	case <-ctx.Done():
		t.Fatal("the proxy never synced")
	}

	ep := func(name, conds string) discoveryv1.Endpoint {
		e := endpoint(pp[name].ip, name, conds)
		e.NodeName = ptr("n1")
		return e
	}
	ready := func(name string) string { return "ready " + pp[name].target }
	step := func(name string, slices map[string][]discoveryv1.Endpoint, want map[string]string, answer string) {
		t.Helper()
		for sliceName, eps := range slices {
			writeSlice(ctx, t, admin, slice(sliceName, brokerPort, eps...))
		}
		waitServers(ctx, t, name, lb, want)
		if answer != "" {
			if got := get(t, lb.URL()); got != answer {
				t.Errorf("%s: a request through HAProxy got %q, want %q", name, got, answer)
			}
		}
	}

	step("b0 ready, b1 not, one endpoint unknown to the pod network",
		map[string][]discoveryv1.Endpoint{"pinot-broker-a": {ep("b0", "RS"), ep("b1", ""),
			{Addresses: []string{"10.244.0.200"}, Conditions: ep("b0", "RS").Conditions,
				TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "ghost"}}}},
		map[string]string{"slot-0": ready("b0")}, "200 b0")
	if s, err := lb.Servers(); err != nil || s[0].Weight >= haproxy.FullWeight {
		t.Errorf("slot-0 just entered with slowstart 30s: %+v %v, want its weight below full", s, err)
	}
	if !strings.Contains(logs.String(), "10.244.0.200") {
		t.Errorf("the endpoint unknown to the pod network was not logged:\n%s", logs.String())
	}
	step("b1 ready",
		map[string][]discoveryv1.Endpoint{"pinot-broker-a": {ep("b0", "RS"), ep("b1", "RS")}},
		map[string]string{"slot-0": ready("b0"), "slot-1": ready("b1")}, "")
	step("b1 terminating while b0 is ready: b1 out",
		map[string][]discoveryv1.Endpoint{"pinot-broker-a": {ep("b0", "RS"), ep("b1", "ST")}},
		map[string]string{"slot-0": ready("b0")}, "200 b0")
	step("b0 not ready either: b1, serving and terminating, is the fallback",
		map[string][]discoveryv1.Endpoint{"pinot-broker-a": {ep("b0", ""), ep("b1", "ST")}},
		map[string]string{"slot-1": ready("b1")}, "200 b1")
	step("b1 removed: nothing in rotation",
		map[string][]discoveryv1.Endpoint{"pinot-broker-a": {ep("b0", "")}},
		map[string]string{}, "503 ")
	step("b1 back and b2 new, in a second slice: b1 in its old slot, b2 in a free one",
		map[string][]discoveryv1.Endpoint{"pinot-broker-b": {ep("b1", "RS"), ep("b2", "RS")}},
		map[string]string{"slot-1": ready("b1"), "slot-2": ready("b2")}, "")
	if err := admin.CoreV1().Services(ns).Delete(ctx, "pinot-broker", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitServers(ctx, t, "Service deleted", lb, map[string]string{})

	var b1 []string
	for _, e := range p.Events() {
		if e.Pod == ns+"/b1" {
			b1 = append(b1, fmt.Sprintf("%s %s (%s)", e.Kind, e.Slot, e.Reason))
		}
	}
	if want := []string{"enter slot-1 (ready)", "leave slot-1 (not ready)", "enter slot-1 (" + ReasonFallback + ")",
		"leave slot-1 (" + ReasonRemoved + ")", "enter slot-1 (ready)", "leave slot-1 (no Service)"}; !reflect.DeepEqual(b1, want) {
		t.Errorf("b1's events:\n got %q\nwant %q", b1, want)
	}
	stop()
	if err := g.Wait(); err != nil {
		t.Errorf("Run: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// writeSlice creates the slice or replaces the one of its name.
func writeSlice(ctx context.Context, t *testing.T, c kubernetes.Interface, s *discoveryv1.EndpointSlice) {
	t.Helper()
	api := c.DiscoveryV1().EndpointSlices(ns)
	old, err := api.Get(ctx, s.Name, metav1.GetOptions{})
	if err == nil {
		s.ResourceVersion = old.ResourceVersion
		_, err = api.Update(ctx, s, metav1.UpdateOptions{})
	} else {
		_, err = api.Create(ctx, s, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("write EndpointSlice %s: %v", s.Name, err)
	}
}

// waitServers waits until HAProxy's servers are want (slot → "ready <addr>"), the others in
// maintenance.
func waitServers(ctx context.Context, t *testing.T, step string, lb *haproxy.LB, want map[string]string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var got map[string]string
	for {
		servers, err := lb.Servers()
		if err != nil {
			t.Fatal(err)
		}
		got = map[string]string{}
		for _, s := range servers {
			if s.Status != "MAINT" {
				got[s.Name] = "ready " + s.Addr
			}
		}
		if reflect.DeepEqual(got, want) {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("%s: HAProxy's servers in rotation %v, want %v", step, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// get is one request on a new connection: "status body".
func get(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		body = nil // HAProxy's error page
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// freeBase is the start of a run of loopback ports likely free: a port the kernel just handed out.
func freeBase(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
