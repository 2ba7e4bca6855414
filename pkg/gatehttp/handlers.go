package gatehttp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handlers serves the sidecar's endpoints.
type Handlers struct {
	// Gate says whether warmup lets readiness through, and the phase.
	Gate *Gate
	// Status is the /status document for a readiness verdict: any snapshot the
	// sidecar keeps, encoded as JSON. Nil: no /status.
	Status func(ready bool) any
	// Health is the broker's /health, checked live for /readyz.
	Health *BrokerHealth
	// Gatherer is what /metrics serves.
	Gatherer prometheus.Gatherer
}

// Mux routes /readyz, /livez, /status and /metrics.
func (h *Handlers) Mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", h.readyz)
	mux.HandleFunc("GET /livez", livez)
	if h.Status != nil {
		mux.HandleFunc("GET /status", h.status)
	}
	mux.Handle("GET /metrics", promhttp.HandlerFor(h.Gatherer, promhttp.HandlerOpts{}))
	return mux
}

// Ready is the /readyz decision: gate open AND broker healthy.
func (h *Handlers) Ready(ctx context.Context) (bool, string) {
	if h.Gate.Phase() == PhaseStopping {
		return false, "stopping"
	}
	if !h.Gate.IsOpen() {
		return false, string(h.Gate.Phase()) + ": " + h.Gate.Reason()
	}
	if ok, why := h.Health.Get(ctx); !ok {
		return false, why
	}
	return true, "ok"
}

func (h *Handlers) readyz(w http.ResponseWriter, r *http.Request) {
	ok, why := h.Ready(r.Context())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_, _ = w.Write([]byte(why + "\n"))
}

// livez is 200 while the process serves: liveness must never depend on warmth.
func livez(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

func (h *Handlers) status(w http.ResponseWriter, r *http.Request) {
	ready, _ := h.Ready(r.Context())
	s := h.Status(ready)
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(s)
}

// ShutdownTimeout bounds a graceful HTTP shutdown.
const ShutdownTimeout = 5 * time.Second
