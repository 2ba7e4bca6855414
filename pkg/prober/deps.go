package prober

import (
	"context"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Broker runs one probe query. *pinot.Client satisfies it.
type Broker interface {
	Query(ctx context.Context, q pinot.Query) pinot.Result
}

// Catalog answers what the plan needs: the cluster's tables (controller) and
// this broker's routing for one table. *pinot.Client satisfies it.
type Catalog interface {
	Tables(ctx context.Context) ([]string, error)
	RoutingTable(ctx context.Context, table string) (pinot.RoutingTable, error)
}
