package plan

import (
	"context"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Broker runs one query. *pinot.Client satisfies it.
type Broker interface {
	// Query sends q and classifies the answer; it never blocks past ctx.
	Query(ctx context.Context, q pinot.Query) pinot.Result
}

// Catalog answers what the plan needs: the cluster's tables (controller) and
// this broker's routing for one table. *pinot.Client satisfies it.
type Catalog interface {
	// Tables lists the cluster's raw table names; pinot.ErrNoController when
	// there is no controller to ask.
	Tables(ctx context.Context) ([]string, error)
	// RoutingTable is this broker's routing for table; pinot.ErrNoRouting
	// (wrapped) when it has none.
	RoutingTable(ctx context.Context, table string) (pinot.RoutingTable, error)
}
