package rollout

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// raw is one event's trace and timeline, kept in the work dir for re-analysis.
type raw struct {
	Trace  *coldstart.Trace `json:"trace"`
	Events []Event          `json:"events"`
}

func (e *env) saveRaw(tag string, tr *coldstart.Trace, events []Event) error {
	dir := filepath.Join(e.work, "raw")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save raw %s: %w", tag, err)
	}
	return coldstart.WriteJSON(filepath.Join(dir, "rollout-"+tag+".json"), raw{Trace: tr, Events: events})
}

// Outputs are the files a study wrote.
type Outputs struct {
	JSON, Markdown string
	PNGs           []string
}

// write rewrites <Out>/<Name>.json, .md and one timeline PNG per arm from the results so far.
func (e *env) write() error {
	_, err := WriteResults(e.cfg.Out, e.cfg.Name, e.study)
	return err
}

// WriteResults writes s as <dir>/<name>.json, <name>.md and <name>-<arm>.png (each arm's
// timeline: its rollout with the most failed + cancelled queries, the first on a tie).
func WriteResults(dir, name string, s *Study) (Outputs, error) {
	o := Outputs{JSON: filepath.Join(dir, name+".json"), Markdown: filepath.Join(dir, name+".md")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return o, fmt.Errorf("results: %w", err)
	}
	if err := coldstart.WriteJSON(o.JSON, s); err != nil {
		return o, err
	}
	for _, arm := range TimelineArms(s) {
		png := filepath.Join(dir, TimelineFile(name, arm))
		if err := WriteTimeline(png, worstRollout(s.Arms[arm].Rollouts), s); err != nil {
			return o, err
		}
		o.PNGs = append(o.PNGs, png)
	}
	if err := os.WriteFile(o.Markdown, []byte(Markdown(s, filepath.Base(name))), 0o644); err != nil {
		return o, fmt.Errorf("results: %w", err)
	}
	return o, nil
}

// ReadStudy reads a study's JSON.
func ReadStudy(path string) (*Study, error) { return coldstart.ReadJSON[Study](path, "study") }

// TimelineArms are the arms of s that have a timeline picture: those with a rollout.
func TimelineArms(s *Study) []string {
	var arms []string
	for _, arm := range s.ArmNames() {
		if worstRollout(s.Arms[arm].Rollouts) != nil {
			arms = append(arms, arm)
		}
	}
	return arms
}

// TimelineFile is the file name of arm's timeline picture in the study name's results.
func TimelineFile(name, arm string) string { return name + "-" + arm + ".png" }

// Pictures are the arms' timeline pictures as Markdown images; prefix is the study's path
// without its extension as the page that shows them reaches it (its name, beside the report).
func Pictures(s *Study, prefix string) string {
	var b strings.Builder
	for _, arm := range TimelineArms(s) {
		fmt.Fprintf(&b, "\n![%s timeline](%s)\n", arm, TimelineFile(prefix, arm))
	}
	return b.String()
}

func worstRollout(rs []*Result) *Result {
	var w *Result
	for _, r := range rs {
		if w == nil || r.Failed+r.Cancelled > w.Failed+w.Cancelled {
			w = r
		}
	}
	return w
}
