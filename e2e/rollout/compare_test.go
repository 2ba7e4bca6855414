package rollout

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// compareResult: one rollout of arm, n seconds of load, its p99 per second p99(t), the pod states given.
func compareResult(arm string, lost int, p99 func(t int) float64, states []StateSpan) *Result {
	r := &Result{Arm: arm, N: 1, Kind: "rollout", Cancelled: lost, RolloutStartSeconds: 30, DurationSeconds: 90, States: states}
	for t := range 150 {
		r.Seconds = append(r.Seconds, Second{At: float64(t), Queries: 40, OK: 40, P50Ms: 5, P99Ms: p99(t)})
	}
	r.Steady.P99Ms = 20
	return r
}

func compareStudy() *Study {
	states := []StateSpan{{Pod: 0, State: StateStarting, FromS: 35, ToS: 50}, {Pod: 0, State: StateReady, FromS: 50, ToS: 150}}
	cold := func(t int) float64 {
		if t >= 50 && t < 60 {
			return 900
		}
		return 20
	}
	return &Study{Brokers: 3, RateQPS: 40, Arms: map[string]*Arm{
		// the worse of off's rollouts is drawn: the first has nothing lost, the second 7.
		"off":        {Rollouts: []*Result{compareResult("off", 0, cold, states), compareResult("off", 7, cold, states)}},
		"on_default": {Rollouts: []*Result{compareResult("on_default", 0, func(int) float64 { return 22 }, states)}},
		"empty":      {Rollouts: []*Result{{Arm: "empty", N: 1}}},
	}}
}

func TestComparePNGDrawsBothArmsOnOnePicture(t *testing.T) {
	b, err := ComparePNG(compareStudy(), [2]string{"off", "on_default"})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w <= h || w < 600 {
		t.Errorf("picture %dx%d: want a wide picture for a page", w, h)
	}
	// The two arms' p99 curves are drawn in their own colours (anti-aliased over white): both appear.
	seen := map[int]int{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			for i, c := range compareColours {
				if overWhite(img.At(x, y), c) {
					seen[i]++
				}
			}
		}
	}
	if seen[0] < 100 || seen[1] < 100 {
		t.Errorf("pixels of each arm's colour: %v, want both drawn", seen)
	}
}

func TestComparePNGRefusesAnArmItCannotDraw(t *testing.T) {
	for _, arms := range [][2]string{{"off", "on_boost"}, {"empty", "off"}} {
		_, err := ComparePNG(compareStudy(), arms)
		if err == nil {
			t.Errorf("%v: no error", arms)
			continue
		}
		want := arms[0]
		if arms[0] == "off" {
			want = arms[1]
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want it to name %s", arms, err, want)
		}
	}
}

// overWhite: px is c laid over white at a coverage of at least a third, within rounding.
func overWhite(px, c color.Color) bool {
	r1, g1, b1, _ := px.RGBA()
	r2, g2, b2, _ := c.RGBA()
	p := [3]float64{float64(r1 >> 8), float64(g1 >> 8), float64(b1 >> 8)}
	q := [3]float64{float64(r2 >> 8), float64(g2 >> 8), float64(b2 >> 8)}
	// the coverage a, from the channel c darkens most: p = a*q + (1-a)*255
	k := 0
	for j := range q {
		if q[j] < q[k] {
			k = j
		}
	}
	a := (255 - p[k]) / (255 - q[k])
	if a < 0.33 || a > 1.02 {
		return false
	}
	for j := range q {
		if d := p[j] - (a*q[j] + (1-a)*255); d > 6 || d < -6 {
			return false
		}
	}
	return true
}
