// Package shapes derives warmup probe queries from a table's schema: a bounded,
// deterministic set of SQL "shapes" that together run every broker reduce path
// and the common compile paths, which a selection-only probe (SELECT * LIMIT 1)
// leaves cold.
//
// Per typed table, single-stage (at most MaxSingleStage):
//
//	filter_order_time   selection, = filter, ORDER BY <time> DESC (filter_order without a time column)
//	agg_metrics         COUNT, SUM/MIN/MAX/AVG over metrics under an IN filter (agg_count without metrics)
//	group_by_1          GROUP BY one column, ORDER BY an aggregate, BETWEEN filter
//	group_by_2_having   GROUP BY two columns, HAVING, ORDER BY an aggregate, NOT IN filter
//	                    (group_by_1_having when only one column can be grouped)
//	distinct            SELECT DISTINCT
//	distinctcount       DISTINCTCOUNT and DISTINCTCOUNTHLL
//	percentile          PERCENTILE and PERCENTILETDIGEST
//	time_bucket         GROUP BY a bucket of the time column that fits its format
//	regexp_like         REGEXP_LIKE on a string column
//	agg_mv              COUNTMV/DISTINCTCOUNTMV (SUMMV when numeric) on a multi-value column
//
// With Options.MultiStage, each of those also runs on the multi-stage engine
// ("mse_" + name, same SQL), plus mse_window (ROW_NUMBER and SUM OVER) and
// mse_cte (WITH ... SELECT). JoinShapes adds mse_join between tables that
// share a column name and type, else mse_self_join.
//
// Filter values come from sample rows the broker returned, so filters select
// real data; without rows the filter is left out and the SQL stays valid. Every
// identifier is double-quoted, every query has a LIMIT, columns are chosen the
// same way for the same input whatever the schema's width. A shape the broker
// rejects is the caller's to drop, as for a custom query. Generate returns nil
// when no column is usable: the caller keeps the LIMIT 1 probe.
//
// Wiring: per chosen table, pinot.Client.Schema (ErrSchemaNotFound: keep
// LIMIT 1) and pinot.Client.Sample per typed leg (an error or no rows: keep
// LIMIT 1, since shapes without rows have no filter and no time bound and
// would scan the whole table); Generate per leg (a hybrid
// table's legs share the schema, so they get the same shapes); JoinShapes once
// over all legs; run a MultiStage shape with pinot.Query.MultiStage set.
//
// The package does no I/O: schema and rows in, shapes out.
package shapes
