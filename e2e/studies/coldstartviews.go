package studies

import (
	"fmt"
	"os"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// coldstartSection is a view of one part of the cold-start report, of the call's study.
func coldstartSection(part func(*coldstart.Study) string) func(*Repo, call) (string, error) {
	return func(r *Repo, c call) (string, error) {
		s, err := r.coldstart(c.file)
		if err != nil {
			return "", err
		}
		return part(s), nil
	}
}

// coldstartTable is the study's figures per arm, and what makes them suspect.
func coldstartTable(s *coldstart.Study) string { return coldstart.Table(s) + coldstart.Warnings(s) }

// jdk25View is a JSON of results/jdk25 as its own report shows it: a steady study's tables, or a
// cold-start study's figures with its broker JVM's (its JDK, its AOT cache, its start).
func jdk25View(r *Repo, c call) (string, error) {
	if s, err := r.steady(c.file); err == nil {
		return bench.SteadyMarkdown(s), nil
	}
	s, err := r.coldstart(c.file)
	if err != nil {
		return "", fmt.Errorf("%w (nor a steady study)", err)
	}
	return coldstart.Table(s) + coldstart.JVMTable(s) + coldstart.Warnings(s), nil
}

// coldstartPicture is the plot committed beside the study's JSON.
func coldstartPicture(r *Repo, c call) (string, error) {
	if _, err := r.coldstart(c.file); err != nil {
		return "", err
	}
	png := strings.TrimSuffix(c.file, ".json") + ".png"
	if _, err := os.Stat(r.path(png)); err != nil {
		return "", fmt.Errorf("%s: no such file (the study's plot)", png)
	}
	return coldstart.PlotImage(link(c.page, png)), nil
}

func steadyTable(r *Repo, c call) (string, error) {
	s, err := r.steady(c.file)
	if err != nil {
		return "", err
	}
	return bench.SteadyMarkdown(s), nil
}
