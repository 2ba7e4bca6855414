package cluster

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The data is a pure function of the row index, so every run (and every machine) loads the same
// rows and query results can be asserted.

const smallHeader = "id,category,amount"

func smallRow(w *bufio.Writer, i int) {
	fmt.Fprintf(w, "%d,c%d,%d.%d\n", i, i%7, i/2, (i%2)*5)
}

const benchHeader = "event_id,user_id,country,device,event_type,latency_ms,amount,ts"

var (
	benchCountries = []string{"US", "DE", "FR", "GB", "IN", "BR", "JP", "CN", "CA", "AU",
		"MX", "ES", "IT", "NL", "SE", "PL", "KR", "ZA", "AR", "NG"}
	benchDevices    = []string{"ios", "android", "web", "tv", "desktop"}
	benchEventTypes = []string{"view", "click", "search", "add_to_cart", "purchase",
		"login", "logout", "share", "like", "comment"}
)

// benchEpochMs is 2026-01-01T00:00:00Z: rows are one second apart from it, so each segment covers
// a contiguous time range (time pruning has something to prune).
const benchEpochMs = 1767225600000

func benchRow(w *bufio.Writer, i int) {
	h := splitmix64(uint64(i))
	fmt.Fprintf(w, "%d,%d,%s,%s,%s,%d,%d.%02d,%d\n",
		i,
		h%100_000,
		benchCountries[(h>>17)%uint64(len(benchCountries))],
		benchDevices[(h>>23)%uint64(len(benchDevices))],
		benchEventTypes[(h>>29)%uint64(len(benchEventTypes))],
		1+(h>>35)%2000,
		(h>>41)%10_000, (h>>53)%100,
		benchEpochMs+int64(i)*1000)
}

// splitmix64 is a fixed, well-mixed hash: unlike math/rand it can never change under us.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// writeSegmentCSVs splits the table's rows into spec.segments CSV files (one per segment) under
// dir and returns their paths in segment order.
func writeSegmentCSVs(dir string, spec tableSpec) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("generate %s: %w", spec.name, err)
	}
	var paths []string
	for seg := range spec.segments {
		first, end := seg*spec.rows/spec.segments, (seg+1)*spec.rows/spec.segments
		path := filepath.Join(dir, spec.name+"_"+strconv.Itoa(seg)+".csv")
		if err := writeCSV(path, spec, first, end); err != nil {
			return nil, fmt.Errorf("generate %s segment %d: %w", spec.name, seg, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func writeCSV(path string, spec tableSpec, first, end int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(spec.header + "\n")
	for i := first; i < end; i++ {
		spec.row(w, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

const hybridHeader = "id,category,tags,amount,ts"

// hybridEpochMs is 2026-01-01T00:00:00Z: the OFFLINE leg covers the first hours of that day at 10 s a
// row, the REALTIME leg starts a day later, so the time boundary falls between them.
const hybridEpochMs = 1767225600000

func hybridTags(i int) string { return fmt.Sprintf("t%d;t%d", i%3, 3+i%4) }

func hybridOfflineRow(w *bufio.Writer, i int) {
	fmt.Fprintf(w, "%d,c%d,%s,%d.%d,%d\n", i, i%5, hybridTags(i), i%97, i%10, hybridEpochMs+int64(i)*10_000)
}

// hybridRealtimeLine is one Kafka record for the REALTIME leg: "key|json" (see Cluster.produce).
func hybridRealtimeLine(i int) string {
	tags := strings.Split(hybridTags(i), ";")
	return fmt.Sprintf(`%d|{"id":%d,"category":"c%d","tags":["%s","%s"],"amount":%d.%d,"ts":%d}`+"\n",
		i, RowsHybridOffline+i, i%5, tags[0], tags[1], i%97, i%10, hybridEpochMs+86_400_000+int64(i)*1000)
}
