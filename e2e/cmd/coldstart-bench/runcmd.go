package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// runCmd measures one restart of one arm against any broker. The operator restarts the broker
// (and, for ON, its sidecar) around it; with --wait-down it may be started first.
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var (
		w            windowFlags
		m            mixFlags
		header       = headerList{}
		broker       = fs.String("broker", "", "broker base URL the load goes to, e.g. http://127.0.0.1:8099 (required)")
		readyURL     = fs.String("ready-url", "", "what turns the pod Ready: the broker's /health (OFF, the default) or the sidecar's /readyz (ON)")
		waitDown     = fs.Bool("wait-down", false, "first wait for --ready-url to stop answering 200 (start this, then restart the broker)")
		statusURL    = fs.String("status-url", "", "the sidecar's /status, read after the load for warmup_seconds (ON arms)")
		rate         = fs.Float64("rate", 0, "arrivals per second, from the Ready instant on (required)")
		arm          = fs.String("arm", "", "arm name the restart is filed under (default: off, or on if --status-url is set)")
		out          = fs.String("out", "coldstart-results", "directory: study.json / study.md (this restart appended to its arm), <arm>-<n>.png and the per-query trace")
		pinotVersion = fs.String("pinot-version", "unknown", "recorded in study.json")
	)
	w.register(fs)
	m.register(fs)
	fs.Var(header, "header", "request header for queries, \"Name: value\" (repeatable), e.g. Authorization")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if *broker == "" || *rate <= 0 {
		fmt.Fprintln(stderr, "run: --broker and --rate (> 0) are required")
		return exitBadArgs
	}
	if err := w.check(); err != nil {
		fmt.Fprintln(stderr, "run:", err)
		return exitBadArgs
	}
	mix, mixName, err := m.load()
	if err != nil {
		fmt.Fprintln(stderr, "run:", err)
		return exitBadArgs
	}
	base := strings.TrimRight(*broker, "/")
	if *readyURL == "" {
		*readyURL = base + "/health"
	}
	if *arm == "" {
		*arm = coldstart.ArmOff
		if *statusURL != "" {
			*arm = "on"
		}
	}

	log.Info("waiting for Ready", "url", *readyURL, "wait_down_first", *waitDown)
	readyAt, err := coldstart.WaitReady(ctx, *readyURL, *waitDown)
	if err != nil {
		log.Error("run", "error", err)
		return exitFailed
	}
	log.Info("Ready: load starts", "rate", *rate, "until", w.warmEnd)
	bc := coldstart.NewBrokerClient(base, http.Header(header))
	defer bc.Close()
	tr, err := coldstart.RunLoad(ctx, coldstart.LoadConfig{Rate: *rate, Duration: w.warmEnd, Timeout: w.timeout}, mix, bc.Send)
	if err != nil {
		log.Error("run", "error", err)
		return exitFailed
	}
	cold, warm := coldstart.Window{Start: 0, End: w.cold}, coldstart.Window{Start: w.warmStart, End: w.warmEnd}
	res := coldstart.Summarise(tr, cold, warm)
	res.ReadyAt = readyAt
	if *statusURL != "" {
		info, err := readStatus(ctx, *statusURL)
		if err != nil {
			log.Warn("sidecar status unreadable: warmup_seconds left 0", "error", err)
		} else {
			res.Warmup, res.WarmupSeconds = info, info.DurationSeconds
		}
	}

	studyPath := filepath.Join(*out, "study.json")
	s, err := coldstart.ReadStudy(studyPath)
	if errors.Is(err, os.ErrNotExist) {
		m := coldstart.DescribeMachine()
		s = &coldstart.Study{PinotVersion: *pinotVersion, RateQPS: *rate, Arms: map[string]*coldstart.Arm{}, Mix: mixName,
			ColdWindow: cold, WarmWindow: warm, TimeoutMs: float64(w.timeout.Milliseconds()), Queries: mix,
			Machine: m, Command: "coldstart-bench run " + strings.Join(args, " "), StartedAt: readyAt}
	} else if err != nil {
		log.Error("run", "error", err)
		return exitFailed
	} else if s.RateQPS != *rate || s.ColdWindow != cold || s.WarmWindow != warm || !slices.Equal(s.Queries, mix) {
		log.Error("run: " + studyPath + " was made with another rate, other windows or another query mix: use another --out")
		return exitFailed
	}
	if s.Arms[*arm] == nil {
		s.Arms[*arm] = &coldstart.Arm{}
	}
	s.Arms[*arm].Restarts = append(s.Arms[*arm].Restarts, res)
	s.FinishedAt = time.Now()
	n := len(s.Arms[*arm].Restarts)
	if err := coldstart.WriteJSON(studyPath, s); err != nil {
		log.Error("run", "error", err)
		return exitFailed
	}
	if err := coldstart.WriteMarkdown(filepath.Join(*out, "study.md"), s); err != nil {
		log.Error("run", "error", err)
		return exitFailed
	}
	tag := fmt.Sprintf("%s-%d", *arm, n)
	if err := coldstart.WriteJSON(filepath.Join(*out, tag+".trace.json"), tr); err != nil {
		log.Error("run", "error", err)
		return exitFailed
	}
	plot := filepath.Join(*out, tag+".png")
	if err := coldstart.WritePlot(plot, []coldstart.PlotRun{{Title: tag, Trace: tr}}, coldstart.PlotOptions{Cold: cold, Warm: warm, End: w.warmEnd}); err != nil {
		log.Error("run", "error", err)
		return exitFailed
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintf(stdout, "%s\n", b)
	log.Info("restart recorded", "arm", *arm, "n", n, "study", studyPath, "plot", plot)
	return exitOK
}

func readStatus(ctx context.Context, url string) (*coldstart.WarmupInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var info coldstart.WarmupInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return &info, nil
}
