package studies

import (
	"fmt"
	"slices"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/rollout"
)

// Kinds of study JSON a view reads.
const (
	kindRollout   = "rollout"   // results/rollout/*.json: e2e/rollout's Study
	kindColdstart = "coldstart" // results/coldstart/*.json: e2e/coldstart's Study
	kindSteady    = "steady"    // the steady-*.json: e2e/bench's SteadyStudy
	kindJDK25     = "jdk25"     // results/jdk25/*.json: a steady study or a cold-start one
)

// view is one kind of generated block.
type view struct {
	// usage is how a block names it, for the errors.
	usage string
	// kind is the study its FILE is ("": it names none).
	kind string
	// options are the key=value words it takes (after FILE); spec says it wants spec lines.
	options []string
	spec    bool
	render  func(r *Repo, c call) (string, error)
}

// call is one block's request of its view.
type call struct {
	// page holds the block; file is the study's JSON; both from the repository root.
	page, file string
	opts       map[string]string
	spec       []string
}

var views map[string]view

// armsOption restricts a view to some arms of the study: arms=a,b.
var armsOption = []string{"arms"}

func init() {
	views = map[string]view{
		"rollout-table":     {usage: "rollout-table FILE [arms=a,b]", kind: kindRollout, options: armsOption, render: rolloutSection(rollout.Table)},
		"rollout-targets":   {usage: "rollout-targets FILE", kind: kindRollout, render: rolloutSection(rollout.TargetsSection)},
		"rollout-method":    {usage: "rollout-method FILE", kind: kindRollout, render: rolloutSection(rollout.Method)},
		"rollout-platform":  {usage: "rollout-platform FILE", kind: kindRollout, render: rolloutSection(rollout.PlatformSection)},
		"rollout-cost":      {usage: "rollout-cost FILE [arms=a,b]", kind: kindRollout, options: armsOption, render: rolloutSection(rollout.WarmupCostSection)},
		"rollout-events":    {usage: "rollout-events FILE [arms=a,b]", kind: kindRollout, options: armsOption, render: rolloutSection(rollout.EventsSection)},
		"rollout-restarts":  {usage: "rollout-restarts FILE [arms=a,b]", kind: kindRollout, options: armsOption, render: rolloutSection(rollout.RestartsSection)},
		"rollout-java":      {usage: "rollout-java FILE [arms=a,b]", kind: kindRollout, options: armsOption, render: rolloutSection(rollout.JavaSection)},
		"rollout-notes":     {usage: "rollout-notes FILE", kind: kindRollout, render: rolloutSection(rollout.NotesSection)},
		"rollout-pictures":  {usage: "rollout-pictures FILE [arms=a,b]", kind: kindRollout, options: armsOption, render: rolloutPictures},
		"coldstart-table":   {usage: "coldstart-table FILE", kind: kindColdstart, render: coldstartSection(coldstartTable)},
		"coldstart-jvm":     {usage: "coldstart-jvm FILE", kind: kindColdstart, render: coldstartSection(coldstart.JVMTable)},
		"coldstart-targets": {usage: "coldstart-targets FILE", kind: kindColdstart, render: coldstartSection(coldstart.TargetsTable)},
		"coldstart-method":  {usage: "coldstart-method FILE", kind: kindColdstart, render: coldstartSection(coldstart.Method)},
		"coldstart-picture": {usage: "coldstart-picture FILE", kind: kindColdstart, render: coldstartPicture},
		"jdk25-table":       {usage: "jdk25-table FILE", kind: kindJDK25, render: jdk25View},
		"steady-table":      {usage: "steady-table FILE", kind: kindSteady, render: steadyTable},
		"rollout-rows":      {usage: "rollout-rows [pages=DIR], then a spec line per row: label | values | FILE ARM", options: []string{"pages"}, spec: true, render: rolloutRows},
		"index":             {usage: "index [pages=DIR]", options: []string{"pages"}, render: index},
	}
}

// viewNames are the views, sorted, for the errors.
func viewNames() string {
	var names []string
	for n := range views {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// callOf checks b's words against its view: a FILE that exists where the view reads one, only
// the view's options, spec lines only where it takes them.
func (r *Repo) callOf(page string, b Block) (view, call, error) {
	v, ok := views[b.View]
	if !ok {
		return v, call{}, fmt.Errorf("unknown view %q (the views: %s)", b.View, viewNames())
	}
	c := call{page: page, opts: map[string]string{}, spec: b.Spec}
	args := b.Args
	if v.kind != "" {
		if len(args) == 0 || strings.Contains(args[0], "=") {
			return v, c, fmt.Errorf("no FILE: want %s", v.usage)
		}
		file, err := r.file(args[0])
		if err != nil {
			return v, c, fmt.Errorf("%w (want %s)", err, v.usage)
		}
		c.file, args = file, args[1:]
	}
	for _, a := range args {
		k, val, ok := strings.Cut(a, "=")
		if !ok || val == "" || !slices.Contains(v.options, k) {
			return v, c, fmt.Errorf("argument %q: want %s", a, v.usage)
		}
		if _, dup := c.opts[k]; dup {
			return v, c, fmt.Errorf("argument %q given twice: want %s", k, v.usage)
		}
		c.opts[k] = val
	}
	switch {
	case v.spec && len(b.Spec) == 0:
		return v, c, fmt.Errorf("no spec line: want %s", v.usage)
	case !v.spec && len(b.Spec) > 0:
		return v, c, fmt.Errorf("spec lines given (%q): want %s", b.Spec[0], v.usage)
	}
	return v, c, nil
}

// arms is the arms= option's list (nil: every arm).
func (c call) arms() []string {
	if c.opts["arms"] == "" {
		return nil
	}
	return strings.Split(c.opts["arms"], ",")
}
