// Command fakebroker serves internal/fakepinot's broker and controller on one
// loopback address, for scripts/footprint.sh: each table on a server of its own,
// a fixed serve delay per query, and query counts at GET /fake/stats. It prints
// its URL on the first line of stdout and stops on SIGTERM or SIGINT.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakebroker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback)")
	delay := fs.Duration("delay", 2*time.Millisecond, "serve time added to every query")
	tables := fs.String("tables", "orders,clicks,events", "tables, each on its own server")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "fakebroker:", err)
		return 1
	}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	srv := &http.Server{Handler: newHandler(strings.Split(*tables, ","), *delay), ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
		}
		return nil
	})
	g.Go(func() error { <-ctx.Done(); return srv.Close() })
	if err := g.Wait(); err != nil {
		fmt.Fprintln(stderr, "fakebroker:", err)
		return 1
	}
	return 0
}

// newHandler answers as the fake broker and, at GET /tables, the fake controller,
// with the floor-probe and no-scatter counts at GET /fake/stats.
func newHandler(tables []string, delay time.Duration) http.Handler {
	b := fakepinot.NewUnstartedBroker(ownServers(tables))
	b.SetDelay(delay)
	mux := http.NewServeMux()
	mux.Handle("/", b.Handler())
	mux.Handle("GET /tables", fakepinot.NewUnstartedController(tables...).Handler())
	mux.HandleFunc("GET /fake/stats", func(w http.ResponseWriter, _ *http.Request) {
		noScatter := b.QueriesOf(prober.NoScatterSQL)
		fmt.Fprintf(w, "{\"queries\":%d,\"no_scatter\":%d}\n", b.Queries()-noScatter, noScatter)
	})
	return mux
}

// ownServers routes each table's OFFLINE leg to a server of its own.
func ownServers(tables []string) map[string]map[string][]string {
	r := map[string]map[string][]string{}
	for i, t := range tables {
		r[t+"_OFFLINE"] = map[string][]string{fmt.Sprintf("Server_10.0.0.%d_8098", i+1): {t + "_0"}}
	}
	return r
}
