package cluster

import (
	"bufio"
	"fmt"
	"slices"
)

// Tables the harness loads. The placement tables exist so the sidecar's set cover has something to
// cover: one table per server and one spanning both.
const (
	TableServer1 = "placement_s1"   // OFFLINE, only on server 1 (ServerInstanceIDs()[0])
	TableServer2 = "placement_s2"   // OFFLINE, only on server 2 (ServerInstanceIDs()[1])
	TableBoth    = "placement_both" // OFFLINE, 4 segments, 2 on each server
	TableBench   = "bench_events"   // OFFLINE, Options.BenchRows rows over Options.BenchSegments segments, on both servers
	TableHybrid  = "hybrid_events"  // OFFLINE + REALTIME (Kafka, 2 partitions): Options.Hybrid only
)

// Row counts of the placement tables: distinct so a COUNT(*) tells the tables apart.
const (
	RowsServer1 = 1000
	RowsServer2 = 2000
	RowsBoth    = 4000

	RowsHybridOffline  = 2000 // the OFFLINE leg, 2 segments
	RowsHybridRealtime = 1000 // the REALTIME leg, consumed from Kafka
)

// Server tenants: server 1 carries TenantServer1_OFFLINE, server 2 TenantServer2_OFFLINE, both keep
// DefaultTenant_OFFLINE (used by TableBoth and TableBench).
const (
	TenantServer1 = "serverOne"
	TenantServer2 = "serverTwo"
)

// tableSpec says what to load into a table (schema and config come from e2e/testdata/tables) and
// where its segments must end up (indices into ServerInstanceIDs; nil: anywhere).
type tableSpec struct {
	name     string
	rows     int
	segments int
	servers  []int
	header   string
	row      func(w *bufio.Writer, i int) // writes row i (0-based over the whole table)
}

func (c *Cluster) tableSpecs() []tableSpec {
	specs := []tableSpec{
		{name: TableServer1, rows: RowsServer1, segments: 1, servers: []int{0}, header: smallHeader, row: smallRow},
		{name: TableServer2, rows: RowsServer2, segments: 1, servers: []int{1}, header: smallHeader, row: smallRow},
		{name: TableBoth, rows: RowsBoth, segments: 4, servers: []int{0, 1}, header: smallHeader, row: smallRow},
	}
	if c.opts.Hybrid {
		specs = append(specs, tableSpec{name: TableHybrid, rows: RowsHybridOffline, segments: 2,
			header: hybridHeader, row: hybridOfflineRow})
	}
	if c.opts.BenchTable {
		specs = append(specs, tableSpec{name: TableBench, rows: c.opts.BenchRows, segments: c.opts.BenchSegments,
			header: benchHeader, row: benchRow})
	}
	return specs
}

// Tables lists the tables Start loaded (raw names), placement tables first.
func (c *Cluster) Tables() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.tables)
}

// ExpectedRows is the row count Start loaded into table, 0 for an unknown table.
func (c *Cluster) ExpectedRows(table string) int {
	for _, s := range c.tableSpecs() {
		if s.name == table {
			return s.rows
		}
	}
	return 0
}

// serverTags are the Helix tags per server that realise the placement above.
func serverTags(i int) string {
	tenant := []string{TenantServer1, TenantServer2}[i]
	return fmt.Sprintf("DefaultTenant_OFFLINE,DefaultTenant_REALTIME,%s_OFFLINE", tenant)
}
