package proxy

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sync/errgroup"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// Run against the fake clientset: it applies the Service and slices it finds, follows a change
// the watch delivers, spaces changes by MinSyncPeriod, ignores another Service's slices, and
// stops with its context, leaving no goroutine behind.
func TestRunWatchesAndStops(t *testing.T) {
	defer goleak.VerifyNone(t)
	client := fake.NewClientset(brokerService(),
		slice("pinot-broker-a", brokerPort, endpoint("10.244.0.10", "b0", "RS")))
	other := slice("other-a", brokerPort, endpoint("10.244.0.11", "b1", "RS"))
	other.Labels[discoveryv1.LabelServiceName] = "other"
	if _, err := client.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fake has no resource versions: a write between the informer's list and its watch is
	// lost, so the test writes once both watches are open.
	watching := make(chan struct{}, 2)
	client.PrependWatchReactor("*", func(a clienttesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(a.GetResource(), a.GetNamespace(), a.(clienttesting.WatchActionImpl).ListOptions)
		if err != nil {
			return false, nil, err
		}
		watching <- struct{}{}
		return true, w, nil
	})
	lb := &fakeLB{}
	p, err := New(Options{Client: client, Namespace: ns, Service: "pinot-broker", PortName: "broker",
		Balancer: lb, Slots: 2, Lookup: fakeNet, MinSyncPeriod: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var g errgroup.Group
	g.Go(func() error { return p.Run(ctx) })
	for range 2 {
		select {
		case <-watching:
		case <-ctx.Done():
			t.Fatal("the proxy's watches never started")
		}
	}
	select {
	case <-p.Synced():
	case <-ctx.Done():
		t.Fatal("never synced")
	}
	entered := lb.when("ready slot-0")
	if got, want := lb.take(), []string{"maint slot-0", "maint slot-1", "addr slot-0 127.0.0.1:24000", "ready slot-0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("first sync sent %q, want %q (every slot reset, then b0 in; not the other Service's b1)", got, want)
	}
	if err := p.Run(ctx); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a second Run: %v", err)
	}

	s := slice("pinot-broker-a", brokerPort, endpoint("10.244.0.10", "b0", ""))
	if _, err := client.DiscoveryV1().EndpointSlices(ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for len(p.Current()) != 0 {
		if ctx.Err() != nil {
			t.Fatal("b0 turned not ready, but it stayed in rotation")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if took := lb.when("maint slot-0").Sub(entered); took < 300*time.Millisecond {
		t.Errorf("the change was applied %s after the first sync, want ≥ MinSyncPeriod 300ms", took)
	}
	if evs := p.Events(); len(evs) != 2 || evs[1].Kind != KindLeave || evs[1].Reason != ReasonNotReady {
		t.Errorf("events %+v, want b0's entry then its exit (not ready)", evs)
	}
	cancel()
	if err := g.Wait(); err != nil {
		t.Errorf("Run after its context ended: %v, want nil", err)
	}
}

// A balancer that refuses a change ends Run with the refusal.
func TestRunEndsOnARefusal(t *testing.T) {
	defer goleak.VerifyNone(t)
	client := fake.NewClientset(brokerService(),
		slice("pinot-broker-a", brokerPort, endpoint("10.244.0.10", "b0", "RS")))
	p, err := New(Options{Client: client, Namespace: ns, Service: "pinot-broker", PortName: "broker",
		Balancer: &fakeLB{fail: "addr slot-0"}, Slots: 1, Lookup: fakeNet, Log: newLogger(&bytes.Buffer{})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.Run(ctx); err == nil || !strings.Contains(err.Error(), "point slot-0 at pinot/b0") {
		t.Errorf("Run: %v, want the refusal to point slot-0 at b0", err)
	}
}
