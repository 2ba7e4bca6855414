package report

import "github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"

// /status is served on a port anyone who reaches the pod can read, and the
// schema shapes filter on values sampled from the tables' rows. So /status
// shows every query with its literals as ? (sqltext.Mask). Its messages need
// nothing more: the broker's words reach them only through pkg/pinot, which
// masks the literals of the query a request carried in the whole answer
// before it folds and cuts it. The logs keep the SQL as sent: they sit behind
// the cluster's access control, and an operator fixing a dropped query needs
// it as it was.

// withLiteralsMasked is s, a Snapshot (its lists its own), as /status shows it:
// the queries with their literals as ?.
func (s Status) withLiteralsMasked() Status {
	for i, q := range s.Queries {
		s.Queries[i] = sqltext.Mask(q)
	}
	for i, d := range s.DroppedQueries {
		s.DroppedQueries[i].SQL = sqltext.Mask(d.SQL)
	}
	s.Decided = s.decided()
	return s
}
