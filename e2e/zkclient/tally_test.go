package zkclient

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func TestCountTalliesTheWindowAgainstOneBroker(t *testing.T) {
	recs := []Record{
		{Sent: at(-1), Broker: "b1:1"},        // before the window
		{Sent: at(0), Broker: "b1:1"},         // ok
		{Sent: at(10), Broker: "b2:2"},        // another broker
		{Sent: at(20), Err: "no broker: ..."}, // none to pick
		{Sent: at(30), Broker: "b1:1", Err: "HTTP 503"},
		{Sent: at(40), Broker: "b1:1", Cancelled: true},
		{Sent: at(100), Broker: "b1:1"}, // at `to`: outside
	}
	got := Count(recs, "b1:1", at(0), at(100))
	want := Tally{Sent: 5, NoBroker: 1, ToBroker: 3, OK: 1, Errors: 1, Cancelled: 1}
	if got != want {
		t.Fatalf("Count = %+v, want %+v", got, want)
	}
	if s := got.Share(); s != 0.6 {
		t.Fatalf("Share = %v, want 0.6", s)
	}
	if sum := got.Add(got); sum != (Tally{Sent: 10, NoBroker: 2, ToBroker: 6, OK: 2, Errors: 2, Cancelled: 2}) {
		t.Fatalf("Add = %+v", sum)
	}
	if s := (Tally{}).Share(); s != 0 {
		t.Fatalf("empty Share = %v", s)
	}
}

func TestFirstSelectedAndDropped(t *testing.T) {
	sels := []Selection{
		{At: at(0), Brokers: []string{"a:1", "b:2"}},
		{At: at(100), Brokers: []string{"a:1"}},        // b leaves (its shutdown)
		{At: at(500), Brokers: []string{"a:1", "b:2"}}, // b back (external view ONLINE)
	}
	for _, tc := range []struct {
		name   string
		broker string
		since  int
		want   int
		ok     bool
	}{
		{"in force at since", "a:1", 50, 50, true},
		{"entered after since", "b:2", 100, 500, true},
		{"entered exactly at since", "b:2", 500, 500, true},
		{"held at since before leaving", "b:2", 50, 50, true},
		{"never", "c:3", 0, 0, false},
	} {
		got, ok := FirstSelected(sels, tc.broker, at(tc.since))
		if ok != tc.ok || (ok && !got.Equal(at(tc.want))) {
			t.Errorf("%s: FirstSelected = %v %v, want %v %v", tc.name, got.Sub(t0), ok, time.Duration(tc.want)*time.Millisecond, tc.ok)
		}
	}
	if got, ok := Dropped(sels, "b:2", at(0)); !ok || !got.Equal(at(100)) {
		t.Errorf("Dropped(b) = %v %v, want 100ms", got.Sub(t0), ok)
	}
	if _, ok := Dropped(sels, "b:2", at(101)); ok {
		t.Error("Dropped(b) after it came back: want none")
	}
	if _, ok := Dropped(sels, "a:1", at(0)); ok {
		t.Error("Dropped(a): a never left")
	}
}

func TestLatenciesOfOneBrokerInTheWindowSorted(t *testing.T) {
	recs := []Record{
		{Sent: at(0), Broker: "b1:1", Latency: 30 * time.Millisecond},
		{Sent: at(1), Broker: "b2:2", Latency: 1 * time.Millisecond},
		{Sent: at(2), Broker: "b1:1", Latency: 2 * time.Second, Cancelled: true},
		{Sent: at(3), Latency: 0, Err: "no broker"},
		{Sent: at(4), Broker: "b1:1", Latency: 10 * time.Millisecond},
		{Sent: at(9), Broker: "b1:1", Latency: 5 * time.Millisecond}, // outside
	}
	if got := Latencies(recs, "b1:1", at(0), at(9)); fmt.Sprint(got) != "[10 30 2000]" {
		t.Errorf("b1 latencies %v, want [10 30 2000]", got)
	}
	if got := Latencies(recs, "", at(0), at(9)); fmt.Sprint(got) != "[1 10 30 2000]" {
		t.Errorf("every broker's latencies %v, want [1 10 30 2000] (no-broker failures have no round trip)", got)
	}
}
