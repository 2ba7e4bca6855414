package jvmmetrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// agent1x is the shape of a JMX exporter 1.x agent's text answer (client_java
// JvmMetrics plus Pinot MBeans through rules).
const agent1x = `# HELP jmx_exporter_build_info JMX Exporter build information
# TYPE jmx_exporter_build_info gauge
jmx_exporter_build_info{name="jmx_prometheus_javaagent",version="1.1.0"} 1
# HELP jvm_classes_loaded_total The total number of classes that have been loaded since the JVM has started execution
# TYPE jvm_classes_loaded_total counter
jvm_classes_loaded_total 9141.0
# HELP jvm_compilation_time_seconds_total The total time in seconds taken for HotSpot class compilation
# TYPE jvm_compilation_time_seconds_total counter
jvm_compilation_time_seconds_total 9.756
# HELP jvm_gc_collection_seconds Time spent in a given JVM garbage collector in seconds.
# TYPE jvm_gc_collection_seconds summary
jvm_gc_collection_seconds_count{gc="G1 Young Generation"} 12
jvm_gc_collection_seconds_sum{gc="G1 Young Generation"} 0.231
# HELP pinot_broker_queries_total queries
# TYPE pinot_broker_queries_total counter
pinot_broker_queries_total{table="orders_OFFLINE"} 1234.0
`

// openMetrics1x is the same agent answering OpenMetrics (it ignored Accept).
const openMetrics1x = `# TYPE jvm_compilation_time_seconds counter
# UNIT jvm_compilation_time_seconds seconds
# HELP jvm_compilation_time_seconds The total time in seconds taken for HotSpot class compilation
jvm_compilation_time_seconds_total 10.0
# TYPE jvm_threads_current gauge
jvm_threads_current 42.0
# EOF
`

func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

func text(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}
}

func TestCompileTimeReadsKnownSeries(t *testing.T) {
	cases := []struct {
		name string
		body string
		want time.Duration
	}{
		{"JMX exporter 1.x text", agent1x, 9756 * time.Millisecond},
		{"OpenMetrics answer", openMetrics1x, 10 * time.Second},
		{"milliseconds (older hotspot exports, Micrometer)", "# TYPE jvm_compilation_time_ms_total counter\njvm_compilation_time_ms_total 123432.0\n", 123432 * time.Millisecond},
		{"a JMX rule-less export keeps MBean case", "java_lang_Compilation_TotalCompilationTime 4567.0\n", 4567 * time.Millisecond},
		{"several samples are summed", "jvm_compilation_time_seconds_total{compiler=\"c1\"} 1.5\njvm_compilation_time_seconds_total{compiler=\"c2\"} 2.25\n", 3750 * time.Millisecond},
		{"seconds win over milliseconds", "jvm_compilation_time_ms_total 99000\njvm_compilation_time_seconds_total 2\n", 2 * time.Second},
		{"a sample with a timestamp", "jvm_compilation_time_seconds_total 3 1700000000000\n", 3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &Scraper{URL: serve(t, text(tc.body))}
			got, err := s.CompileTime(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("compile time %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCompileTimeAsksForTheTextFormat(t *testing.T) {
	var accept string
	s := &Scraper{URL: serve(t, func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		text(agent1x)(w, r)
	})}
	if _, err := s.CompileTime(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(accept, "text/plain;version=0.0.4") {
		t.Fatalf("Accept = %q, want the classic text format first", accept)
	}
}

func TestCompileTimeErrors(t *testing.T) {
	cases := []struct {
		name string
		h    http.HandlerFunc
		max  int64
		want string
	}{
		{"404", func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) }, 0, "HTTP 404"},
		{"an HTML page", text("<html><body>Pinot</body></html>\n"), 0, "no JIT compilation-time series: expected one of jvm_compilation_time_seconds_total, "},
		{"a Pinot-only agent (no JVM series)", text("# TYPE pinot_broker_queries_total counter\npinot_broker_queries_total 3\n"), 0, "no JIT compilation-time series"},
		{"a garbled value", text("jvm_compilation_time_seconds_total twelve\n"), 0, "parsing the exposition text"},
		{"a negative value", text("jvm_compilation_time_seconds_total -4\n"), 0, "value -4: expected a cumulative time of 0 or more"},
		{"NaN", text("jvm_compilation_time_seconds_total NaN\n"), 0, "expected a cumulative time of 0 or more"},
		{"absurdly large", text("jvm_compilation_time_seconds_total 1e300\n"), 0, "expected a cumulative time below 292 years"},
		{"larger than the cap", text(agent1x + strings.Repeat("# filler\n", 200)), 1024, "answer larger than 1024 bytes"},
		{"a line longer than 1 MiB", text(strings.Repeat("x", 2<<20) + "\n"), 8 << 20, "token too long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := serve(t, tc.h)
			s := &Scraper{URL: url, MaxBytes: tc.max}
			got, err := s.CompileTime(context.Background())
			if err == nil {
				t.Fatalf("no error (compile time %s), want %q", got, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "reading JVM metrics from "+url+": ") {
				t.Fatalf("error %q, want it to name the URL and contain %q", err, tc.want)
			}
		})
	}
}

func TestCompileTimeUnreachable(t *testing.T) {
	srv := httptest.NewServer(text(agent1x))
	url := srv.URL + "/metrics"
	srv.Close()
	_, err := (&Scraper{URL: url}).CompileTime(context.Background())
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v, want connection refused", err)
	}
}

func TestCompileTimeSlowEndpointEndsWithTheContext(t *testing.T) {
	release := make(chan struct{})
	s := &Scraper{URL: serve(t, func(w http.ResponseWriter, r *http.Request) {
		select { // answers only when the test is over: a hung agent
		case <-release:
		case <-r.Context().Done():
		}
	})}
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := s.CompileTime(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
}

// A stream without end is cut at the cap, not read for ever.
func TestCompileTimeEndlessAnswerIsCut(t *testing.T) {
	s := &Scraper{URL: serve(t, func(w http.ResponseWriter, r *http.Request) {
		line := []byte("pinot_broker_queries_total{table=\"t\"} 1\n")
		for r.Context().Err() == nil {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}), MaxBytes: 64 << 10}
	_, err := s.CompileTime(context.Background())
	if err == nil || !strings.Contains(err.Error(), "answer larger than 65536 bytes") {
		t.Fatalf("err = %v, want the size cap", err)
	}
}
