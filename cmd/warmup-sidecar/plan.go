package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	probeplan "github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// plan prints what a warmup would probe. It sends no probe; for the default probe
// it sends what planning sends: the multi-stage engine's detection query (unless
// WARMUP_MULTISTAGE=off) and, with schema shapes, a sample (SELECT * ... LIMIT 10)
// per leg.
func plan(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to try to make a plan")
	if err := fs.Parse(args); err != nil {
		return exitBadConfig
	}
	cfg, log, ok := loadConfig(stderr)
	if !ok {
		return exitBadConfig
	}
	client, err := newClient(cfg)
	if err != nil {
		log.Error("bad configuration", "error", err)
		return exitBadConfig
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	set := settings(cfg).Plan()
	p, err := probeplan.Planner{Catalog: client, Settings: set, Engine: probeplan.FindEngine(ctx, client, set)}.Plan(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "warmup-sidecar plan:", err)
		return exitNotWarm
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(p)
		return exitOK
	}
	printPlan(stdout, p, cfg.MinIterations, cfg.Concurrency)
	return exitOK
}

func printPlan(w io.Writer, p prober.Plan, floor, concurrency int) {
	if p.Custom {
		fmt.Fprintf(w, "mode: custom queries (%d), each run %d× per round\n", len(p.Queries), concurrency)
	} else {
		fmt.Fprintf(w, "mode: default probe over %d table(s), %d probe(s) per round\n", len(p.Tables), concurrency)
		for _, t := range p.Tables {
			fmt.Fprintf(w, "table %s\n  legs:    %s\n  servers: %s\n", t.Name, strings.Join(t.Legs, ", "), strings.Join(t.Servers, ", "))
		}
		for _, t := range p.Dropped {
			fmt.Fprintf(w, "dropped %s: this broker cannot route it\n", t)
		}
		c := p.Coverage
		fmt.Fprintf(w, "coverage: %d of %d server(s)", len(c.Universe)-len(c.Uncovered), len(c.Universe))
		if len(c.Uncovered) > 0 {
			fmt.Fprintf(w, "; uncovered: %s", strings.Join(c.Uncovered, ", "))
		}
		fmt.Fprintln(w)
		if p.CatalogErr != "" {
			fmt.Fprintf(w, "catalog: %s; coverage is judged over the listed tables only\n", p.CatalogErr)
		}
	}
	fmt.Fprintf(w, "multi-stage engine: %s\n", p.Engine.Found)
	for _, leg := range slices.Sorted(maps.Keys(p.Fallbacks)) {
		fmt.Fprintf(w, "LIMIT 1 for %s: %s\n", leg, p.Fallbacks[leg])
	}
	fmt.Fprintf(w, "floor: %d successful probes\n", floor)
	fmt.Fprintf(w, "shapes: %s\n", strings.Join(p.ShapeNames(), ", "))
	for i, q := range p.Queries {
		fmt.Fprintf(w, "query [%s]: %s\n", p.ShapeOf(i), q)
	}
}
