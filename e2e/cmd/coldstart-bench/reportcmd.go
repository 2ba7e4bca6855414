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
