package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// loadRealtime feeds TableHybrid's topic, creates the REALTIME leg beside the OFFLINE twin that
// loadTables already made, and waits until the broker routes both legs and the REALTIME leg
// answers every produced row.
func (c *Cluster) loadRealtime(ctx context.Context) error {
	start := time.Now()
	// Producing first creates the topic with the broker's two partitions before Pinot reads its
	// partition count.
	if err := c.produce(ctx, KafkaTopic, func(w io.Writer) error {
		for i := range RowsHybridRealtime {
			if _, err := io.WriteString(w, hybridRealtimeLine(i)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := c.createRealtimeTable(ctx); err != nil {
		return err
	}
	typed := TableHybrid + "_REALTIME"
	err := waitFor(ctx, c.kafka, "table "+typed+" ready", c.opts.StartTimeout, func(ctx context.Context) error {
		rt, err := c.RoutingTable(ctx, TableHybrid)
		if err != nil {
			return err
		}
		legs := slices.Sorted(maps.Keys(rt))
		if !slices.Equal(legs, []string{TableHybrid + "_OFFLINE", typed}) {
			return fmt.Errorf("broker routes legs %v, want both", legs)
		}
		n, err := c.Count(ctx, typed)
		if err != nil {
			return err
		}
		if n != RowsHybridRealtime {
			return fmt.Errorf("COUNT(*) = %d, want %d", n, RowsHybridRealtime)
		}
		return nil
	})
	if err != nil {
		return err
	}
	servers, _ := c.ServersOf(ctx, typed)
	c.log.Info("pinot table ready", "table", typed, "rows", RowsHybridRealtime, "consumingServers", servers,
		"waited", time.Since(start).Round(time.Millisecond))
	return nil
}

// createRealtimeTable posts the REALTIME config with this cluster's Kafka address and the
// consumer factory of the Pinot version in use.
func (c *Cluster) createRealtimeTable(ctx context.Context) error {
	file := filepath.Join(c.root, "e2e", "testdata", "tables", TableHybrid+".realtime.table.json")
	body, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("create table %s_REALTIME: %w", TableHybrid, err)
	}
	factory := "org.apache.pinot.plugin.stream.kafka30.KafkaConsumerFactory"
	if !c.AtLeast1x() {
		factory = "org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory"
	}
	conf := strings.NewReplacer("${KAFKA_BOOTSTRAP}", c.kafkaAddress(), "${KAFKA_CONSUMER_FACTORY}", factory).Replace(string(body))
	if _, err := c.do(ctx, http.MethodPost, c.ControllerURL()+"/tables", "application/json", bytes.NewReader([]byte(conf))); err != nil {
		return fmt.Errorf("create table %s_REALTIME from %s: %w", TableHybrid, filepath.Base(file), err)
	}
	return nil
}
