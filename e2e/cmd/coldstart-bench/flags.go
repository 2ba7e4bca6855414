package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// windowFlags are the load's timing, shared by run and study.
type windowFlags struct {
	cold, warmStart, warmEnd, timeout time.Duration
}

func (w *windowFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&w.cold, "cold", 8*time.Second, "cold window [0, cold) after Ready")
	fs.DurationVar(&w.warmStart, "warm-start", 60*time.Second, "warm window start (the load runs continuously until --warm-end)")
	fs.DurationVar(&w.warmEnd, "warm-end", 75*time.Second, "warm window end, and the end of the load")
	fs.DurationVar(&w.timeout, "timeout", coldstart.DefaultTimeout, "client timeout: a round trip beyond it is a cancellation")
}

func (w windowFlags) check() error {
	switch {
	case w.cold <= 0:
		return fmt.Errorf("--cold %s: want > 0", w.cold)
	case w.warmStart < w.cold:
		return fmt.Errorf("--warm-start %s: want ≥ --cold %s", w.warmStart, w.cold)
	case w.warmEnd <= w.warmStart:
		return fmt.Errorf("--warm-end %s: want > --warm-start %s", w.warmEnd, w.warmStart)
	case w.timeout <= 0:
		return fmt.Errorf("--timeout %s: want > 0", w.timeout)
	}
	return nil
}

// mixFlags choose the query mix: a named one (--mix) or a file (--queries-file).
type mixFlags struct {
	name, file, table string
}

func (m *mixFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.name, "mix", "", "named query mix over --table: "+strings.Join(coldstart.MixNames, ", ")+" (default "+coldstart.MixBuiltin+")")
	fs.StringVar(&m.file, "queries-file", "", "queries, one per line (\"name: SELECT ...\" names one; # comments), instead of a named mix")
	fs.StringVar(&m.table, "table", "bench_events", "table of the named mixes (columns and values of e2e/testdata/tables/bench_events.schema.json)")
}

// load returns the mix and its name (empty for a queries file).
func (m mixFlags) load() (coldstart.Mix, string, error) {
	if m.file != "" {
		if m.name != "" {
			return nil, "", fmt.Errorf("--mix %s and --queries-file: give one of them", m.name)
		}
		mix, err := coldstart.LoadMix(m.file)
		return mix, "", err
	}
	name := cmp.Or(m.name, coldstart.MixBuiltin)
	mix, err := coldstart.NamedMix(name, m.table)
	if err != nil {
		return nil, "", fmt.Errorf("--mix: %w", err)
	}
	return mix, name, nil
}

// headerList is a repeatable "Name: value" flag.
type headerList http.Header

func (h headerList) String() string { return "" }

func (h headerList) Set(v string) error {
	k, val, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("header %q: want \"Name: value\"", v)
	}
	http.Header(h).Add(strings.TrimSpace(k), strings.TrimSpace(val))
	return nil
}

// envList is a repeatable KEY=VALUE flag.
type envList map[string]string

func (e envList) String() string { return "" }

func (e envList) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || !strings.HasPrefix(k, "WARMUP_") {
		return fmt.Errorf("%q: want WARMUP_NAME=value", v)
	}
	e[k] = val
	return nil
}

// armEnvList is a repeatable ARM:WARMUP_NAME=value flag: one arm's own setting.
type armEnvList map[string]map[string]string

func (a armEnvList) String() string { return "" }

func (a armEnvList) Set(v string) error {
	arm, kv, ok := strings.Cut(v, ":")
	if !ok || arm == "" {
		return fmt.Errorf("%q: want ARM:WARMUP_NAME=value", v)
	}
	if a[arm] == nil {
		a[arm] = envList{}
	}
	if err := envList(a[arm]).Set(kv); err != nil {
		return fmt.Errorf("%q: want ARM:WARMUP_NAME=value", v)
	}
	return nil
}

// armOptList is a repeatable ARM:-XX:Option flag: a JVM option of one arm's brokers.
type armOptList map[string][]string

func (a armOptList) String() string { return "" }

func (a armOptList) Set(v string) error {
	arm, opt, ok := strings.Cut(v, ":")
	if !ok || arm == "" || !strings.HasPrefix(opt, "-") {
		return fmt.Errorf("%q: want ARM:-JVMOPTION (e.g. on_baseline:-XX:TieredStopAtLevel=1)", v)
	}
	a[arm] = append(a[arm], opt)
	return nil
}

// armJavaList is a repeatable ARM:PATH flag: the JDK (home or bin/java) of one arm's brokers.
type armJavaList map[string]string

func (a armJavaList) String() string { return "" }

func (a armJavaList) Set(v string) error {
	arm, path, ok := strings.Cut(v, ":")
	if !ok || arm == "" || path == "" {
		return fmt.Errorf("%q: want ARM:JDK (e.g. on_aot:/usr/lib/jvm/temurin-25-jdk-amd64)", v)
	}
	if have, dup := a[arm]; dup && have != path {
		return fmt.Errorf("%q: arm %s already runs on %s", v, arm, have)
	}
	a[arm] = path
	return nil
}

// intList is a comma-separated list of positive integers.
type intList []int

func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, n := range *l {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	*l = nil
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("%q: want positive integers separated by commas", v)
		}
		*l = append(*l, n)
	}
	return nil
}

// parse parses fs and prints its error once; it reports whether to go on and the exit code.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (int, bool) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK, false
		}
		return exitBadArgs, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q\n", fs.Name(), fs.Args())
		return exitBadArgs, false
	}
	return exitOK, true
}

// floatList is a comma-separated list of fractions in (0, 1].
type floatList []float64

func (l *floatList) String() string {
	s := make([]string, len(*l))
	for i, f := range *l {
		s[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (l *floatList) Set(v string) error {
	*l = nil
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || x <= 0 || x > 1 {
			return fmt.Errorf("%q: want fractions in (0, 1] separated by commas", v)
		}
		*l = append(*l, x)
	}
	return nil
}
