package rollout

import (
	"strings"
	"testing"
	"time"
)

func TestReadinessFollowsTheKubeletThresholds(t *testing.T) {
	r := readiness{p: Probe{Success: 2, Failure: 3}}
	for i, step := range []struct {
		ok, ready, changed bool
	}{
		{false, false, false}, // starts not ready; failures keep it so
		{true, false, false},  // one success of two
		{false, false, false}, // a failure resets the run
		{true, false, false},
		{true, true, true}, // two in a row: ready
		{false, true, false},
		{false, true, false},
		{true, true, false}, // a success resets the failures
		{false, true, false},
		{false, true, false},
		{false, false, true}, // three in a row: not ready
	} {
		if changed := r.observe(step.ok); changed != step.changed || r.ready != step.ready {
			t.Fatalf("step %d (ok=%v): ready %v changed %v, want %v %v", i, step.ok, r.ready, changed, step.ready, step.changed)
		}
	}
}

func TestDefaultModelIsTheCharts(t *testing.T) {
	m := DefaultModel()
	if m.Broker != (Probe{60 * time.Second, 10 * time.Second, 10 * time.Second, 1, 10}) || m.Grace != 30*time.Second || m.Propagation != time.Second {
		t.Errorf("default model %+v", m)
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
}

func TestModelRejectsNonsense(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*Model)
		want string
	}{
		{func(m *Model) { m.Broker.Period = 0 }, "broker probe: period 0s"},
		{func(m *Model) { m.Sidecar.Failure = 0 }, "sidecar probe: thresholds"},
		{func(m *Model) { m.Propagation = -time.Second }, "propagation -1s"},
		{func(m *Model) { m.Grace = 0 }, "grace period 0s"},
		{func(m *Model) { m.PreStop = 30 * time.Second }, "preStop 30s"},
		{func(m *Model) { m.MinReady = -1 }, "minReadySeconds"},
	} {
		m := DefaultModel()
		tc.mod(&m)
		if err := m.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to say %q", err, tc.want)
		}
	}
}
