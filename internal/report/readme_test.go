package report

import (
	"log/slog"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/warmup-sidecar/warmup-sidecar/internal/markdown"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// doc reads one of the operator's documents, by its path from the repository's root: the README
// and the two pages it sends the reader to for the whole (docs/configuration.md, docs/troubleshooting.md).
func doc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile("../../" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var metricCell = regexp.MustCompile("^`([a-z_]+)(?:\\{([a-z_,]+)\\})?`$")

// The configuration page's metrics table lists exactly the sidecar's own metrics (the gate's
// and the runs'), each with the type and label names they are registered with.
func TestReadmeMetricsTableMatchesTheCollectors(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := gatehttp.NewMetrics(reg); err != nil {
		t.Fatal(err)
	}
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	// Registered only with WARMUP_BROKER_AOT_LOG.
	if _, err := NewAOTCacheReport("/aot.log", os.ReadFile, NewStatusBoard(true, 1, time.Second, time.Now), reg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCPUBoostReport(NewStatusBoard(true, 1, time.Second, time.Now), reg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	// The series that exist only once a run sets them.
	m.SetUncovered(0)
	m.setShape(event.ShapeState{Shape: "agg_metrics"})
	m.compileRate.WithLabelValues().Set(0)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	type metric struct{ kind, labels string }
	registered := map[string]metric{}
	for _, f := range families {
		var labels []string
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		registered[f.GetName()] = metric{strings.ToLower(f.GetType().String()), strings.Join(labels, ",")}
	}

	rows, err := markdown.Table(doc(t, "docs/configuration.md"), "## Metrics")
	if err != nil {
		t.Fatalf("docs/configuration.md: %v", err)
	}
	documented := map[string]bool{}
	for _, r := range rows {
		cell := metricCell.FindStringSubmatch(r[0])
		if cell == nil || len(r) != 3 {
			t.Errorf("docs/configuration.md row %q: want `name{labels}` | type | meaning", r)
			continue
		}
		name, labels := cell[1], cell[2]
		documented[name] = true
		got, ok := registered[name]
		switch {
		case !ok:
			t.Errorf("docs/configuration.md documents %s, which is not registered", name)
		case got.kind != r[1]:
			t.Errorf("docs/configuration.md: %s is a %s; it is registered as a %s", name, r[1], got.kind)
		case !sameSet(got.labels, labels):
			t.Errorf("docs/configuration.md: %s has labels {%s}; it is registered with {%s}", name, labels, got.labels)
		}
	}
	for name := range registered {
		if !documented[name] {
			t.Errorf("docs/configuration.md's metrics table lacks %s", name)
		}
	}
}

func sameSet(a, b string) bool {
	x, y := strings.Split(a, ","), strings.Split(b, ",")
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// statusField is a backquoted /status field name, or a path into one, alone or
// with its value (`dropped_queries[]`, `jit.ignored: true`).
var statusField = regexp.MustCompile("`([a-z_]+)(?:\\[\\])?(?:\\.([a-z_]+))?(?:`|: )")

// The /status fields the operator's documents name exist: those of the endpoints table
// (at any depth) and the troubleshooting's (a top-level field, then one in it).
func TestReadmeStatusFieldsExist(t *testing.T) {
	top, nested := jsonNames(reflect.TypeOf(Status{}))
	known := map[string]bool{EngineSingleStage: true, EngineMultiStage: true} // the keys of engines
	for n := range top {
		known[n] = true
	}
	for _, fields := range nested {
		for n := range fields {
			known[n] = true
		}
	}
	rows, err := markdown.Table(doc(t, "docs/configuration.md"), "## HTTP endpoints")
	if err != nil {
		t.Fatalf("docs/configuration.md: %v", err)
	}
	found := 0
	for _, r := range rows {
		if r[0] != "`/status`" {
			continue
		}
		for _, m := range statusField.FindAllStringSubmatch(r[1], -1) {
			found++
			if !known[m[1]] {
				t.Errorf("docs/configuration.md's /status row names `%s`, which /status does not have", m[1])
			}
		}
	}
	if found < 20 {
		t.Errorf("docs/configuration.md's /status row names %d fields: the table or its row moved", found)
	}

	checkPath := func(where, field, sub string) {
		switch {
		case !top[field]:
			t.Errorf("%s names `%s`, which is not a /status field", where, field)
		case sub != "" && !nested[field][sub]:
			t.Errorf("%s names `%s.%s`, which /status does not have", where, field, sub)
		}
	}
	for _, path := range []string{"README.md", "docs/troubleshooting.md"} {
		_, jq, ok := strings.Cut(doc(t, path), "jq '{")
		jq, _, _ = strings.Cut(jq, "}'")
		if !ok {
			t.Fatalf("%s: the troubleshooting lost its jq line", path)
		}
		for _, f := range strings.Split(jq, ",") {
			checkPath(path+"'s jq line", strings.TrimSpace(f), "")
		}
	}
	fields, err := markdown.Table(doc(t, "docs/troubleshooting.md"), "Other fields of `/status` that explain a run (`decided` sums them up in one line):")
	if err != nil {
		t.Fatalf("docs/troubleshooting.md: %v", err)
	}
	for _, r := range fields {
		for _, m := range statusField.FindAllStringSubmatch(r[0], -1) {
			checkPath("docs/troubleshooting.md's table", m[1], m[2])
		}
	}
}

// jsonNames lists t's JSON field names, and for each of them the names of the
// object it holds (through pointers, slices and maps).
func jsonNames(t reflect.Type) (map[string]bool, map[string]map[string]bool) {
	top, nested := map[string]bool{}, map[string]map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		top[name] = true
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft.PkgPath() != "time" {
			inner, _ := jsonNames(ft)
			nested[name] = inner
		}
	}
	return top, nested
}
