package coldstart

import (
	"bytes"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func restart(coldCancel, coldP99, warmP99, warmup float64) Restart {
	return Restart{ColdCancelRate: coldCancel, ColdP50Ms: coldP99 / 4, ColdP99Ms: coldP99, ColdMeanTimeUsedMs: 100,
		WarmP99Ms: warmP99, PeakInflight: 10, WarmupSeconds: warmup}
}

func testStudy() *Study {
	return &Study{
		PinotVersion: "0.11.0", RateQPS: 120, TimeoutMs: 2000,
		ColdWindow: Window{0, 8 * time.Second}, WarmWindow: Window{60 * time.Second, 75 * time.Second},
		Arms: map[string]*Arm{
			ArmOff:       {Restarts: []Restart{restart(0.40, 2000, 20, 0), restart(0.30, 2000, 22, 0), restart(0.50, 2000, 18, 0)}},
			ArmOnDefault: {Restarts: []Restart{restart(0.10, 900, 20, 9), restart(0.12, 800, 20, 10), restart(0.08, 1000, 20, 11)}},
			ArmOnLimit1:  {Restarts: []Restart{restart(0.01, 300, 20, 16), restart(0.0, 280, 20, 8), restart(0.0, 320, 20, 9)}},
			ArmOnCustom:  {Restarts: []Restart{restart(0.0, 35, 20, 12), restart(0.004, 40, 20, 13), restart(0.0, 38, 20, 14)}},
		},
	}
}

func TestAggregate(t *testing.T) {
	g := Aggregate([]float64{3, 1, 2, 10})
	if g.Median != 2.5 || g.Mean != 4 || g.Min != 1 || g.Max != 10 || g.N != 4 {
		t.Errorf("Aggregate = %+v", g)
	}
	if g := Aggregate(nil); !math.IsNaN(g.Median) {
		t.Errorf("Aggregate(nil) = %+v, want NaN", g)
	}
}

func TestVerdictsAgainstTheTargets(t *testing.T) {
	vs := Verdicts(testStudy())
	if len(vs) != 3 || vs[0].Arm != ArmOnDefault || vs[1].Arm != ArmOnLimit1 || vs[2].Arm != ArmOnCustom {
		t.Fatalf("verdicts = %+v, want on_default, on_limit1, on_custom", vs)
	}
	def, lim, cus := vs[0], vs[1], vs[2]
	// off mean 0.40; on_default mean 0.10 → 75% cut: short of 99%.
	if math.Abs(def.CancelCut-0.75) > 1e-9 || def.CutOK {
		t.Errorf("on_default cut = %v ok=%v, want 0.75 and failing", def.CancelCut, def.CutOK)
	}
	if def.P99OK || !def.WarmupOK {
		t.Errorf("on_default: p99 ok=%v (cold 900 vs warm 20: want false), warmup ok=%v (want true)", def.P99OK, def.WarmupOK)
	}
	// on_limit1 mean 0.0033 → 99.2% cut; cold p99 300 vs warm 20; one warmup of 16 s.
	if !lim.CutOK || lim.P99OK || lim.WarmupOK || lim.MaxWarmup != 16 {
		t.Errorf("on_limit1 verdict = %+v, want the cut met, p99 and warmup missed", lim)
	}
	// on_custom mean 0.0013 → 99.7% cut, cold p99 38 ≤ 2×20, warmup max 14 < 15.
	if !cus.CutOK || !cus.P99OK || !cus.WarmupOK {
		t.Errorf("on_custom verdict = %+v, want every target met", cus)
	}
}

func TestMarkdownTable(t *testing.T) {
	s := testStudy()
	s.Mix = MixDashboard
	md := Markdown(s)
	for _, want := range []string{
		"| figure | off (n=3) | on_default (n=3) | on_limit1 (n=3) | on_custom (n=3) |",
		"| cold cancellation rate | **40.0%** / 40.0% / [30.0% – 50.0%] | **10.0%** / 10.0% / [8.0% – 12.0%] |",
		"| warmup (s) | — | **10.0** / 10.0 / [9.0 – 11.0] |",
		"| target | on_default | on_limit1 | on_custom |",
		"| cold cancellations cut ≥ 99% vs off (means) | 75.0% ❌ (24.0 points short) | 99.2% ✅ | 99.7% ✅ |",
		"| cold p99 ≤ 2× warm p99 (medians) | 45.0× ❌ (22.5 times the 2× limit) | 15.0× ❌ (7.5 times the 2× limit) | 1.9× ✅ |",
		"| warmup < 15 s (max) | 11.0 s ✅ | 16.0 s ❌ (1.0 s over) | 14.0 s ✅ |",
		"Cold-start study, mix dashboard: Pinot 0.11.0, 120 QPS",
	} {
		mustContain(t, "markdown", md, want)
	}
}

// mustContain fails t when text lacks want, showing the whole text.
func mustContain(t *testing.T, what, text, want string) {
	t.Helper()
	if !strings.Contains(text, want) {
		t.Errorf("%s lacks %q:\n%s", what, want, text)
	}
}

func TestMarkdownNamesAnArmsOwnBrokerJVMOptions(t *testing.T) {
	s := testStudy()
	if md := Markdown(s); strings.Contains(md, "beyond the study's JVM options") {
		t.Errorf("no arm options, yet the table names some:\n%s", md)
	}
	s.ArmBrokerJVMOpts = map[string][]string{ArmOnCustom: {"-XX:TieredStopAtLevel=1"}}
	if md := Markdown(s); !strings.Contains(md, "Arm on_custom's brokers ran with `-XX:TieredStopAtLevel=1` beyond the study's JVM options.") {
		t.Errorf("the arm's own broker options are not named:\n%s", md)
	}
}

func TestMarkdownTargetsWithoutAnOffStorm(t *testing.T) {
	s := testStudy()
	for i := range s.Arms[ArmOff].Restarts {
		s.Arms[ArmOff].Restarts[i].ColdCancelRate = 0
	}
	if md := Markdown(s); !strings.Contains(md, "| cold cancellations cut ≥ 99% vs off (means) | n/a (off had no cold cancellations) |") {
		t.Errorf("no OFF cancellations: the cut must read n/a:\n%s", md)
	}
}

func TestPlotPNG(t *testing.T) {
	tr := &Trace{Timeout: 2 * time.Second}
	for i := range 300 {
		o, lat := OutcomeOK, time.Duration(5+i%7)*msec
		if i < 40 {
			o, lat = OutcomeCancelled, 2*time.Second
		}
		if i == 50 {
			o = OutcomeError
		}
		tr.Records = append(tr.Records, rec(time.Duration(i)*10*msec, lat, o, 3))
	}
	runs := []PlotRun{{"off", tr}, {"on_default", tr}, {"on_custom", tr}}
	path := filepath.Join(t.TempDir(), "p.png")
	if err := WritePlot(path, runs, PlotOptions{Cold: Window{0, time.Second}, Warm: Window{2 * time.Second, 3 * time.Second}}); err != nil {
		t.Fatal(err)
	}
	b, err := PlotPNG(runs, PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w < 1000 || h < 3*200 {
		t.Errorf("PNG is %d×%d, want one wide row per run", w, h)
	}
	if _, err := PlotPNG(nil, PlotOptions{}); err == nil {
		t.Error("PlotPNG(nil) succeeded")
	}
}

func TestStudyJSONRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "latest.json")
	s := testStudy()
	if err := WriteJSON(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Arms[ArmOff].Restarts[1].ColdCancelRate != 0.30 || got.RateQPS != 120 || got.PinotVersion != "0.11.0" {
		t.Errorf("round trip lost figures: %+v", got)
	}
}
