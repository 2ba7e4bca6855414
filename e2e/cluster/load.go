package cluster

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// ingestWorkers: the controller builds each segment on one core; two at a time keeps both cores
// of a small machine busy without queueing a heap's worth of CSV in the controller.
const ingestWorkers = 2

// loadTables tags the servers, creates every table, generates and ingests its segments, then
// waits until each table is fully ONLINE, answers its row count and is placed as promised.
func (c *Cluster) loadTables(ctx context.Context) error {
	for i, id := range c.ServerInstanceIDs() {
		if err := c.tagServer(ctx, id, serverTags(i)); err != nil {
			return err
		}
	}
	specs := c.tableSpecs()
	type job struct {
		table, csv string
		seq        int
	}
	var jobs []job
	for _, spec := range specs {
		if err := c.createTable(ctx, spec.name); err != nil {
			return err
		}
		csvs, err := writeSegmentCSVs(filepath.Join(c.work, "data", spec.name), spec)
		if err != nil {
			return err
		}
		for seq, csv := range csvs {
			jobs = append(jobs, job{spec.name, csv, seq})
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan job)
	var wg sync.WaitGroup
	for range ingestWorkers {
		wg.Go(func() {
			for j := range next {
				if err := c.ingestWithRetry(ctx, j.table, j.csv, j.seq); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("load tables: %w", err)
	}

	for _, spec := range specs {
		if err := c.waitTableReady(ctx, spec); err != nil {
			return err
		}
		c.mu.Lock()
		c.tables = append(c.tables, spec.name)
		c.mu.Unlock()
	}
	if c.opts.Hybrid {
		return c.loadRealtime(ctx)
	}
	return nil
}

// waitTableReady: every segment ONLINE in the external view, in the broker's routing table on
// the expected servers, and the broker's COUNT(*) equal to the rows loaded.
func (c *Cluster) waitTableReady(ctx context.Context, spec tableSpec) error {
	c.mu.Lock()
	broker := c.brokers[0]
	c.mu.Unlock()
	want := make([]string, 0, len(spec.servers))
	ids := c.ServerInstanceIDs()
	for _, i := range spec.servers {
		want = append(want, ids[i])
	}
	start := time.Now()
	err := waitFor(ctx, broker, "table "+spec.name+" ready", c.opts.StartTimeout, func(ctx context.Context) error {
		online, total, err := c.externalViewOnline(ctx, spec.name)
		if err != nil {
			return err
		}
		if online != spec.segments || total != spec.segments {
			return fmt.Errorf("%d of %d segments ONLINE (external view lists %d)", online, spec.segments, total)
		}
		rt, err := c.RoutingTable(ctx, spec.name+"_OFFLINE")
		if err != nil {
			return err
		}
		servers := slices.Sorted(maps.Keys(rt[spec.name+"_OFFLINE"]))
		routed := 0
		for _, segs := range rt[spec.name+"_OFFLINE"] {
			routed += len(segs)
		}
		if routed != spec.segments {
			return fmt.Errorf("broker routes %d of %d segments", routed, spec.segments)
		}
		if spec.servers != nil && !slices.Equal(servers, want) {
			return fmt.Errorf("placement: segments on %v, want %v", servers, want)
		}
		if err := c.othersRoute(ctx, spec.name+"_OFFLINE", spec.segments); err != nil {
			return err
		}
		n, err := c.Count(ctx, spec.name+"_OFFLINE") // typed: a hybrid table's raw count splits at the time boundary
		if err != nil {
			return err
		}
		if n != int64(spec.rows) {
			return fmt.Errorf("COUNT(*) = %d, want %d", n, spec.rows)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.log.Info("pinot table ready", "table", spec.name, "rows", spec.rows, "segments", spec.segments,
		"waited", time.Since(start).Round(time.Millisecond))
	return nil
}

// ServersOf returns the sorted server instance ids the broker routes table (raw or typed name) to,
// over all of its physical tables.
func (c *Cluster) ServersOf(ctx context.Context, table string) ([]string, error) {
	rt, err := c.RoutingTable(ctx, table)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, servers := range rt {
		for id := range servers {
			set[id] = true
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// ingestWithRetry retries an upload a few times: the 0.11 controller names its
// working directory after the current millisecond, so two uploads in the same
// millisecond collide ("Could not create directory", HTTP 500). The segment name is
// explicit, so a retry replaces rather than duplicates.
func (c *Cluster) ingestWithRetry(ctx context.Context, table, csv string, seq int) error {
	var err error
	for attempt := range 4 {
		if err = c.ingestCSV(ctx, table, csv, seq); err == nil || ctx.Err() != nil {
			return err
		}
		c.opts.Logger.Warn("segment upload failed, retrying", "table", table, "segment", seq, "attempt", attempt+1, "error", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(50*(attempt+1)+7*seq) * time.Millisecond):
		}
	}
	return err
}

// othersRoute checks that every broker but the first (which the caller asks itself) routes all
// segments of a typed table: /health GOOD is sticky, so a broker that was healthy before the table
// existed says nothing about it.
func (c *Cluster) othersRoute(ctx context.Context, typed string, segments int) error {
	for i := 1; i < c.opts.Brokers; i++ {
		b := c.Broker(i)
		rt, err := b.RoutingTable(ctx, typed)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Role(), err)
		}
		routed := 0
		for _, segs := range rt[typed] {
			routed += len(segs)
		}
		if routed != segments {
			return fmt.Errorf("%s routes %d of %d segments of %s", b.Role(), routed, segments, typed)
		}
	}
	return nil
}
