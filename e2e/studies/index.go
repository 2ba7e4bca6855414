package studies

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/rollout"
)

// facts are what the index says of one study JSON.
type facts struct {
	start       time.Time
	where, load string
	arms        []string
}

// indexRow is one study page in the index.
type indexRow struct {
	at                                   time.Time
	when, title, link, where, load, arms string
	result                               string
}

// index is the table of every study page, newest first: when, the page (by its title), where,
// the mix and its load, the arms, and the page's result.
func index(r *Repo, c call) (string, error) {
	pages, err := r.studyPages(c)
	if err != nil {
		return "", err
	}
	var rows []indexRow
	for _, p := range pages {
		row, err := r.indexRow(c.page, p)
		if err != nil {
			return "", err
		}
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b indexRow) int {
		return cmp.Or(b.at.Compare(a.at), cmp.Compare(a.title, b.title))
	})
	var b strings.Builder
	b.WriteString("| when | study | where | mix and load | arms | result |\n|---|---|---|---|---|---|\n")
	for _, x := range rows {
		fmt.Fprintf(&b, "| %s | [%s](%s) | %s | %s | %s | %s |\n", cellText(x.when), cellText(x.title), x.link, x.where, x.load, x.arms, cellText(x.result))
	}
	return b.String(), nil
}

// span is when a page's studies began: the first's start, to the last's when they differ.
func span(first, last time.Time) string {
	switch {
	case first.Equal(last):
		return first.Format("2006-01-02 15:04 UTC")
	case first.YearDay() == last.YearDay() && first.Year() == last.Year():
		return first.Format("2006-01-02 15:04") + " – " + last.Format("15:04 UTC")
	}
	return first.Format("2006-01-02 15:04") + " – " + last.Format("2006-01-02 15:04 UTC")
}

var dateRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?`)

// indexRow is p's row: when from its JSONs' starts (ordered by the last), or from its **When:**
// line.
func (r *Repo) indexRow(from string, p studyPage) (indexRow, error) {
	row := indexRow{title: p.title, link: link(from, p.path), result: p.result}
	var wheres, loads, arms []string
	var first time.Time
	for _, f := range p.files {
		x, err := r.factsOf(f)
		if err != nil {
			return row, fmt.Errorf("%s: %w", p.path, err)
		}
		if !x.start.IsZero() && (first.IsZero() || x.start.Before(first)) {
			first = x.start
		}
		if x.start.After(row.at) {
			row.at = x.start
		}
		wheres, loads, arms = addNew(wheres, x.where), addNew(loads, x.load), addNew(arms, x.arms...)
	}
	switch {
	case !row.at.IsZero():
		row.when = span(first.UTC(), row.at.UTC())
	case p.when != "":
		m := dateRE.FindString(p.when)
		t, err := time.Parse("2006-01-02 15:04", m)
		if err != nil {
			t, err = time.Parse("2006-01-02", m)
		}
		if err != nil {
			return row, fmt.Errorf("%s: its **When:** line %q has no date, YYYY-MM-DD", p.path, p.when)
		}
		row.at, row.when = t, p.when
	default:
		return row, fmt.Errorf("%s: no study JSON in a block and no `**When:** YYYY-MM-DD` line: the index orders the pages by it", p.path)
	}
	row.where, row.load = orDash(strings.Join(wheres, "; ")), orDash(strings.Join(loads, "; "))
	quoted := make([]string, len(arms))
	for i, a := range arms {
		quoted[i] = "`" + a + "`"
	}
	row.arms = orDash(strings.Join(quoted, ", "))
	return row, nil
}

// factsOf reads what the index says of f from its JSON.
func (r *Repo) factsOf(f studyFile) (facts, error) {
	switch f.kind {
	case kindRollout:
		s, err := r.rollout(f.path)
		if err != nil {
			return facts{}, err
		}
		return facts{start: s.StartedAt, where: rolloutWhere(s), load: loadOf(s.Mix, s.RateQPS, s.Calibration), arms: s.ArmNames()}, nil
	case kindSteady:
		return r.steadyFacts(f.path)
	case kindJDK25:
		if x, err := r.steadyFacts(f.path); err == nil {
			return x, nil
		}
	}
	s, err := r.coldstart(f.path)
	if err != nil {
		return facts{}, err
	}
	return facts{start: s.StartedAt, where: localWhere(s.Machine), load: loadOf(s.Mix, s.RateQPS, s.Calibration), arms: s.ArmNames()}, nil
}

// steadyFacts are a steady study's: its JVM modes are its arms.
func (r *Repo) steadyFacts(file string) (facts, error) {
	s, err := r.steady(file)
	if err != nil {
		return facts{}, err
	}
	x := facts{start: s.StartedAt, where: localWhere(s.Machine), load: loadOf(s.Mix, s.RateQPS, nil)}
	for _, m := range s.Modes {
		x.arms = append(x.arms, m.Name)
	}
	return x, nil
}

// rolloutWhere is the fleet a rollout study rolled: on the Kubernetes test bed, or (before it)
// on the harness's model of Kubernetes.
func rolloutWhere(s *rollout.Study) string {
	if s.Platform == nil {
		return fmt.Sprintf("local cluster, the harness's model of Kubernetes: %d brokers", s.Brokers)
	}
	cpu := "no CPU limit"
	if l := s.Platform.Broker.CPULimit; l != "" {
		cpu = "CPU limit " + l
	}
	return fmt.Sprintf("Kubernetes test bed: %d brokers, %s", s.Brokers, cpu)
}

// localWhere is the local cluster of a cold-start or steady study: one broker restarted.
func localWhere(m coldstart.Machine) string {
	return fmt.Sprintf("local cluster: 1 broker, %d CPUs", m.CPUs)
}

// loadOf is the mix and its rate, with its share of the warm capacity when calibrated.
func loadOf(mix string, qps float64, cal *coldstart.Calibration) string {
	l := fmt.Sprintf("%s, %.0f QPS", cmp.Or(mix, "queries file"), qps)
	if cal != nil && cal.Fraction > 0 {
		l += fmt.Sprintf(" (%.0f %% of capacity)", 100*cal.Fraction)
	}
	return l
}

func addNew(list []string, v ...string) []string {
	for _, x := range v {
		if x != "" && !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

func orDash(s string) string { return cmp.Or(s, "–") }

// cellText is hand-written text fit for a table cell: one line, its pipes escaped.
func cellText(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
