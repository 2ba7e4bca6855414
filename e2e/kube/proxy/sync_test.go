package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// fakeLB records the runtime API commands the proxy sends; fail makes a command containing it fail.
type fakeLB struct {
	mu   sync.Mutex
	cmds []string
	at   []time.Time
	fail string
}

func (f *fakeLB) do(cmd string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds, f.at = append(f.cmds, cmd), append(f.at, time.Now())
	if f.fail != "" && strings.Contains(cmd, f.fail) {
		return errors.New("refused")
	}
	return nil
}
func (f *fakeLB) SetAddr(s, ip string, port int) error {
	return f.do(fmt.Sprintf("addr %s %s:%d", s, ip, port))
}
func (f *fakeLB) SetReady(s string) error { return f.do("ready " + s) }
func (f *fakeLB) SetMaint(s string) error { return f.do("maint " + s) }

// when is the time of the last command cmd sent since the last take.
func (f *fakeLB) when(cmd string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.cmds) - 1; i >= 0; i-- {
		if f.cmds[i] == cmd {
			return f.at[i]
		}
	}
	return time.Time{}
}

// take returns the commands sent since the last take.
func (f *fakeLB) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.cmds
	f.cmds, f.at = nil, nil
	return c
}

func brokerService() *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "pinot-broker", Namespace: ns},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.20",
			Ports: []corev1.ServicePort{{Name: "broker", Port: 8099, Protocol: corev1.ProtocolTCP}}}}
}

func newTestProxy(t *testing.T, lb Balancer, slots int, log *bytes.Buffer) *Proxy {
	t.Helper()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p, err := New(Options{Client: fake.NewClientset(), Namespace: ns, Service: "pinot-broker", PortName: "broker",
		Balancer: lb, Slots: slots, Lookup: fakeNet,
		Log: newLogger(log),
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// events is one line per event since the last call: kind pod slot (reason).
func events(p *Proxy, from *int) []string {
	var out []string
	evs := p.Events()
	for _, e := range evs[*from:] {
		out = append(out, fmt.Sprintf("%s %s %s (%s)", e.Kind, e.Pod, e.Slot, e.Reason))
	}
	*from = len(evs)
	return out
}

// One endpoint change after another, as the watch delivers them: what the proxy tells HAProxy
// (and in which order), the events it records, the rotation it reports.
func TestSyncFollowsTheEndpoints(t *testing.T) {
	lb := &fakeLB{}
	var logs bytes.Buffer
	p := newTestProxy(t, lb, 3, &logs)
	svc := brokerService()
	seen := 0
	step := func(name string, svc *corev1.Service, slices []*discoveryv1.EndpointSlice, wantCmds, wantEvents []string) {
		t.Helper()
		if err := p.sync(svc, slices); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := lb.take(); !reflect.DeepEqual(got, wantCmds) {
			t.Errorf("%s: commands\n got %q\nwant %q", name, got, wantCmds)
		}
		if got := events(p, &seen); !reflect.DeepEqual(got, wantEvents) {
			t.Errorf("%s: events\n got %q\nwant %q", name, got, wantEvents)
		}
	}
	one := func(eps ...discoveryv1.Endpoint) []*discoveryv1.EndpointSlice {
		return []*discoveryv1.EndpointSlice{slice("pinot-broker-x", brokerPort, eps...)}
	}

	step("b0 ready, b1 not: b0 takes slot-0, its address set before it enters", svc,
		one(endpoint("10.244.0.10", "b0", "RS"), endpoint("10.244.0.11", "b1", "")),
		[]string{"addr slot-0 127.0.0.1:24000", "ready slot-0"},
		[]string{"enter pinot/b0 slot-0 (ready)"})
	step("b1 ready: slot-1", svc,
		one(endpoint("10.244.0.10", "b0", "RS"), endpoint("10.244.0.11", "b1", "RS")),
		[]string{"addr slot-1 127.0.0.1:24010", "ready slot-1"},
		[]string{"enter pinot/b1 slot-1 (ready)"})
	step("nothing changed: nothing sent", svc,
		one(endpoint("10.244.0.10", "b0", "RS"), endpoint("10.244.0.11", "b1", "RS")), nil, nil)
	step("b0 not ready, b1 serving and terminating: b1 stays as the fallback", svc,
		one(endpoint("10.244.0.10", "b0", ""), endpoint("10.244.0.11", "b1", "ST")),
		[]string{"maint slot-0"},
		[]string{"leave pinot/b0 slot-0 (not ready)"})
	if cur := p.Current(); len(cur) != 1 || cur[0].Key() != "pinot/b1" || cur[0].Reason != ReasonFallback || cur[0].Slot != "slot-1" {
		t.Errorf("current: %+v, want b1 in slot-1 as the fallback", cur)
	}
	step("b0 back (its slot again, address unchanged), b2 new, b1 gone: entries first", svc,
		one(endpoint("10.244.0.10", "b0", "RS"), endpoint("10.244.0.12", "b2", "RS")),
		[]string{"ready slot-0", "addr slot-2 127.0.0.1:24020", "ready slot-2", "maint slot-1"},
		[]string{"enter pinot/b0 slot-0 (ready)", "enter pinot/b2 slot-2 (ready)",
			"leave pinot/b1 slot-1 (" + ReasonRemoved + ")"})
	step("a fourth pod finds no slot; one unknown to the pod network: both left out", svc,
		one(endpoint("10.244.0.10", "b0", "RS"), endpoint("10.244.0.12", "b2", "RS"),
			endpoint("10.244.0.11", "b3", "RS"), endpoint("10.244.0.99", "ghost", "RS")),
		nil, nil)
	step("the same again: logged once", svc,
		one(endpoint("10.244.0.10", "b0", "RS"), endpoint("10.244.0.12", "b2", "RS"),
			endpoint("10.244.0.11", "b3", "RS"), endpoint("10.244.0.99", "ghost", "RS")),
		nil, nil)
	for _, want := range []string{"no free server slot", "not in the pod network"} {
		if n := strings.Count(logs.String(), want); n != 1 {
			t.Errorf("log has %q %d times, want once:\n%s", want, n, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "addr=10.244.0.99:8099") {
		t.Errorf("the unknown endpoint's log line does not name its address:\n%s", logs.String())
	}
	step("b0's port changes: out, moved, in", svc,
		[]*discoveryv1.EndpointSlice{slice("x", []port{{name: "broker", num: 9000}}, endpoint("10.244.0.10", "b0", "RS"))},
		[]string{"maint slot-0", "addr slot-0 127.0.0.1:24001", "ready slot-0", "maint slot-2"},
		[]string{"leave pinot/b0 slot-0 (" + ReasonAddrChanged + ")", "enter pinot/b0 slot-0 (ready)",
			"leave pinot/b2 slot-2 (" + ReasonRemoved + ")"})
	step("the Service deleted: everything out", nil,
		[]*discoveryv1.EndpointSlice{slice("x", []port{{name: "broker", num: 9000}}, endpoint("10.244.0.10", "b0", "RS"))},
		[]string{"maint slot-0"}, []string{"leave pinot/b0 slot-0 (no Service)"})
	if cur := p.Current(); len(cur) != 0 {
		t.Errorf("current after the Service went: %+v", cur)
	}
	if !strings.Contains(logs.String(), `msg="proxy: the Service is not proxied" reason="no Service"`) {
		t.Errorf("the Service's absence was not logged:\n%s", logs.String())
	}
	evs := p.Events()
	for i := 1; i < len(evs); i++ {
		if !evs[i].At.After(evs[i-1].At) {
			t.Errorf("event %d at %s, not after event %d at %s", i, evs[i].At, i-1, evs[i-1].At)
		}
	}
	if e := evs[0]; e.Addr != "10.244.0.10:8099" || e.Target != "127.0.0.1:24000" {
		t.Errorf("first event %+v: want addr 10.244.0.10:8099, target 127.0.0.1:24000", e)
	}
}

func TestSyncReportsARefusal(t *testing.T) {
	lb := &fakeLB{fail: "ready slot-0"}
	p := newTestProxy(t, lb, 1, &bytes.Buffer{})
	err := p.sync(brokerService(), []*discoveryv1.EndpointSlice{slice("a", brokerPort, endpoint("10.244.0.10", "b0", "RS"))})
	if err == nil || !strings.Contains(err.Error(), "pinot/b0") || !strings.Contains(err.Error(), "slot-0") {
		t.Errorf("error %v, want one naming the pod and the slot", err)
	}
	if len(p.Events()) != 0 || len(p.Current()) != 0 {
		t.Errorf("a refused entry recorded: %+v %+v", p.Events(), p.Current())
	}
}

func TestOptionsNameTheBadField(t *testing.T) {
	ok := Options{Client: fake.NewClientset(), Namespace: ns, Service: "s", Balancer: &fakeLB{}, Slots: 1, Lookup: fakeNet}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Client = nil }, "Client"},
		{func(o *Options) { o.Service = "" }, "Service"},
		{func(o *Options) { o.Balancer = nil }, "Balancer"},
		{func(o *Options) { o.Slots = 0 }, "Slots 0"},
		{func(o *Options) { o.Lookup = nil }, "Lookup"},
		{func(o *Options) { o.MinSyncPeriod = -time.Second }, "MinSyncPeriod -1s"},
	} {
		o := ok
		tc.mod(&o)
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to name %q", err, tc.want)
		}
	}
	if _, err := New(ok); err != nil {
		t.Error(err)
	}
}

func newLogger(b *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }
