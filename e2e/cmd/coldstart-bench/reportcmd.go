package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// reportCmd re-renders a study's Markdown table and plot from its JSON and saved traces.
func reportCmd(_ context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var (
		study  = fs.String("study", "results/coldstart/latest.json", "the study JSON")
		traces = fs.String("traces", "", "directory of the study's per-query traces (<work-dir>/raw); without it only the Markdown is written")
		readme = fs.Bool("readme", false, "print the benchmark section (command, machine, table, plot link) for --doc and write nothing")
		doc    = fs.String("doc", "docs/benchmarks.md", "with --readme: the Markdown file the section goes into; the plot link is relative to its directory")
	)
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	s, err := coldstart.ReadStudy(*study)
	if err != nil {
		log.Error("report", "error", err)
		return exitFailed
	}
	base := strings.TrimSuffix(*study, filepath.Ext(*study))
	if *readme {
		command := "make bench"
		if s.Mix != "" && s.Mix != coldstart.MixBuiltin {
			command = "BENCH_MIX=" + s.Mix + " make bench"
		}
		plot, err := linkFrom(*doc, base+".png")
		if err != nil {
			log.Error("report", "error", err)
			return exitFailed
		}
		fmt.Fprint(stdout, coldstart.ReadmeSection(s, command, plot))
		return exitOK
	}
	if *traces == "" {
		if err := coldstart.WriteMarkdown(base+".md", s); err != nil {
			log.Error("report", "error", err)
			return exitFailed
		}
		fmt.Fprint(stdout, coldstart.Markdown(s))
		return exitOK
	}
	t, err := bench.LoadTraces(*traces, s)
	if err != nil {
		log.Error("report", "error", err)
		return exitFailed
	}
	out, err := bench.WriteResults(filepath.Dir(base), filepath.Base(base), s, t)
	if err != nil {
		log.Error("report", "error", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s\nWrote %s, %s, %s.\n", coldstart.Markdown(s), out.JSON, out.Markdown, out.PNG)
	return exitOK
}

// linkFrom is target's path as a Markdown link written in doc: relative to doc's
// directory, whatever directory the tool runs in, with forward slashes.
func linkFrom(doc, target string) (string, error) {
	absDoc, err := filepath.Abs(doc)
	if err != nil {
		return "", fmt.Errorf("locating --doc %s: %w", doc, err)
	}
	absTarget, err := filepath.Abs(target)
	if err != nil {
		return "", fmt.Errorf("locating the plot %s: %w", target, err)
	}
	rel, err := filepath.Rel(filepath.Dir(absDoc), absTarget)
	if err != nil {
		return "", fmt.Errorf("linking the plot %s from --doc %s: %w", target, doc, err)
	}
	return filepath.ToSlash(rel), nil
}
