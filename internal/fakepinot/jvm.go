package fakepinot

import (
	"fmt"
	"math"
	"net/http"
)

// JVMMetricsURL is where the fake broker answers like the Prometheus JMX exporter
// agent inside a broker JVM. (A real agent listens on its own port; one server
// keeps the fake small.)
func (b *Broker) JVMMetricsURL() string { return b.URL() + "/metrics" }

// SetJVMMetricsDown makes the agent endpoint answer 404, as a broker without the
// agent would.
func (b *Broker) SetJVMMetricsDown(down bool) { b.mu.Lock(); b.jvmDown = down; b.mu.Unlock() }

// CompileSeconds is the fake JVM's cumulative JIT time after n queries: 1.5 s of
// startup, then up to 2 s more that the serve path compiles, most of it in the
// first few hundred queries, so the compile rate falls as a run goes on.
func CompileSeconds(n int64) float64 {
	return 1.5 + 2*(1-math.Exp(-float64(n)/200))
}

// SetJVMMetricsStall makes the agent hold the reads stall picks (the first read
// is 1) until the client gives up, as a scrape of a saturated JVM times out;
// nil answers every read again.
func (b *Broker) SetJVMMetricsStall(stall func(read int64) bool) {
	b.mu.Lock()
	b.jvmStall = stall
	b.mu.Unlock()
}

// JVMMetricsReads counts the agent's reads, stalled ones too.
func (b *Broker) JVMMetricsReads() int64 { return b.jvmReads.Load() }

func (b *Broker) jvmMetrics(w http.ResponseWriter, r *http.Request) {
	n := b.jvmReads.Add(1)
	b.mu.Lock()
	down, stall := b.jvmDown, b.jvmStall
	b.mu.Unlock()
	if stall != nil && stall(n) {
		<-r.Context().Done()
		return
	}
	if down {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprintf(w, `# HELP jmx_exporter_build_info JMX Exporter build information
# TYPE jmx_exporter_build_info gauge
jmx_exporter_build_info{name="jmx_prometheus_javaagent",version="1.1.0"} 1
# HELP jvm_compilation_time_seconds_total The total time in seconds taken for HotSpot class compilation
# TYPE jvm_compilation_time_seconds_total counter
jvm_compilation_time_seconds_total %.3f
# HELP jvm_threads_current Current thread count of a JVM
# TYPE jvm_threads_current gauge
jvm_threads_current 87.0
`, CompileSeconds(b.queries.Load()))
}
