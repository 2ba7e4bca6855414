// Package jvmmetrics reads the broker JVM's cumulative JIT compilation time from a
// Prometheus text endpoint, such as the Prometheus JMX exporter java agent that
// Pinot's image ships. It speaks only to that endpoint, never to Pinot's API.
package jvmmetrics

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Series are the names that carry the JVM's total compilation time, in order of
// preference, with the unit of their value. Names are matched without regard to
// case: the JMX exporter keeps MBean case unless lowercaseOutputName is set.
var Series = []struct {
	Name string
	Unit time.Duration
}{
	// JMX exporter agent 1.x (client_java JvmMetrics) and 0.x (simpleclient_hotspot).
	{"jvm_compilation_time_seconds_total", time.Second},
	// Older simpleclient_hotspot, and Micrometer's jvm.compilation.time.
	{"jvm_compilation_time_ms_total", time.Millisecond},
	// A JMX exporter rule-less export of java.lang:type=Compilation TotalCompilationTime.
	{"java_lang_compilation_totalcompilationtime", time.Millisecond},
}

// DefaultMaxBytes caps an answer: a JMX exporter answering every Pinot MBean is a
// few MB; an endpoint streaming without end must not hold the sidecar.
const DefaultMaxBytes = 8 << 20

// maxLine caps one line of the exposition text.
const maxLine = 1 << 20

// Scraper reads one endpoint. The caller's ctx bounds each read.
type Scraper struct {
	URL string
	// Client is the HTTP client; nil: http.DefaultClient.
	Client *http.Client
	// MaxBytes caps an answer; 0: DefaultMaxBytes.
	MaxBytes int64
}

// errNoSeries says the endpoint answered without any known series.
var errNoSeries = errors.New("no JIT compilation-time series")

// CompileTime returns the JVM's cumulative compilation time.
func (s *Scraper) CompileTime(ctx context.Context) (time.Duration, error) {
	d, err := s.read(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading JVM metrics from %s: %w", s.URL, err)
	}
	return d, nil
}

func (s *Scraper) read(ctx context.Context) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return 0, err
	}
	// The classic text format: the one expfmt's text parser reads.
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	hc := s.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	limit := s.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	text, err := keepKnown(resp.Body, limit)
	if err != nil {
		return 0, err
	}
	return compileTime(text)
}

// keepKnown streams the answer and keeps only the lines of known series: the
// rest of a large exposition is neither stored nor parsed.
func keepKnown(body io.Reader, limit int64) (string, error) {
	lr := &io.LimitedReader{R: body, N: limit + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var kept strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if known(seriesName(line)) {
			kept.WriteString(line)
			kept.WriteByte('\n')
		}
	}
	if lr.N <= 0 {
		return "", fmt.Errorf("answer larger than %d bytes", limit)
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return kept.String(), nil
}

// seriesName is the metric name a sample, # TYPE or # HELP line is about; "" for
// any other line.
func seriesName(line string) string {
	line = strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(line, "#"); ok {
		f := strings.Fields(rest)
		if len(f) >= 2 && (f[0] == "TYPE" || f[0] == "HELP") {
			return f[1]
		}
		return ""
	}
	if i := strings.IndexAny(line, "{ \t"); i >= 0 {
		return line[:i]
	}
	return line
}

func known(name string) bool {
	_, ok := unitOf(name)
	return ok
}

func unitOf(name string) (time.Duration, bool) {
	for _, s := range Series {
		if strings.EqualFold(name, s.Name) {
			return s.Unit, true
		}
	}
	return 0, false
}

// compileTime parses the kept lines and sums the samples of the preferred series
// present (a JVM with several compilers may export one sample each).
func compileTime(text string) (time.Duration, error) {
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return 0, fmt.Errorf("parsing the exposition text: %w", err)
	}
	for _, s := range Series {
		for name, mf := range fams {
			if !strings.EqualFold(name, s.Name) || len(mf.GetMetric()) == 0 {
				continue
			}
			sum := 0.0
			for _, m := range mf.GetMetric() {
				// One of the three is set; the getters of the others answer 0.
				v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + m.GetUntyped().GetValue()
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					return 0, fmt.Errorf("%s: value %v: expected a cumulative time of 0 or more", name, v)
				}
				sum += v
			}
			if d := sum * float64(s.Unit); d < math.MaxInt64 {
				return time.Duration(d), nil
			}
			return 0, fmt.Errorf("%s: value %v: expected a cumulative time below 292 years", name, sum)
		}
	}
	names := make([]string, len(Series))
	for i, s := range Series {
		names[i] = s.Name
	}
	return 0, fmt.Errorf("%w: expected one of %s", errNoSeries, strings.Join(names, ", "))
}
