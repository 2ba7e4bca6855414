// Command fakebroker is a loopback stand-in for a Pinot broker and controller,
// for scripts/footprint.sh: it answers /health, the controller's /tables,
// /debug/routingTable/{t} and POST /query/sql in Pinot's shapes, after a fixed
// serve delay, and counts queries at GET /fake/stats. Not for tests: those use
// internal/fakepinot or their own handlers.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	delay := flag.Duration("delay", 2*time.Millisecond, "serve time added to every query")
	tables := flag.String("tables", "orders,clicks,events", "tables, each on its own server")
	flag.Parse()

	names := strings.Split(*tables, ",")
	var queries, noScatter atomic.Int64
	answer := `{"resultTable":{"dataSchema":{"columnNames":["a"],"columnDataTypes":["INT"]},"rows":[[1]]},` +
		`"numRowsResultSet":1,"partialResult":false,"exceptions":[],"timeUsedMs":2,"requestId":"1",` +
		`"brokerId":"Broker_127.0.0.1_8099","numDocsScanned":1,"totalDocs":100,` +
		`"numServersQueried":1,"numServersResponded":1,"numSegmentsQueried":1,"numSegmentsProcessed":1}`

	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "OK") })
	mux.HandleFunc("GET /tables", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string][]string{"tables": names})
	})
	mux.HandleFunc("GET /debug/routingTable/{t}", func(w http.ResponseWriter, r *http.Request) {
		t := strings.TrimSuffix(r.PathValue("t"), "_OFFLINE")
		for i, n := range names {
			if n == t {
				fmt.Fprintf(w, `{"%s_OFFLINE":{"Server_10.0.0.%d_8098":["%s_0"]}}`, n, i+1, n)
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"code":404,"error":"Cannot find routing for table: %s"}`, t)
	})
	mux.HandleFunc("POST /query/sql", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"sql":"SELECT 1"`) {
			noScatter.Add(1)
		} else {
			queries.Add(1)
		}
		if *delay > 0 {
			select {
			case <-time.After(*delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answer)
	})
	mux.HandleFunc("GET /fake/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "{\"queries\":%d,\"no_scatter\":%d}\n", queries.Load(), noScatter.Load())
	})

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	_ = os.Stdout.Sync()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
