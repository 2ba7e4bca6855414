package zkclient

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// Record is one query the client sent.
type Record struct {
	// Index is the arrival's number (the query was Options.Queries[Index % len]).
	Index int
	// Due is when the open-loop schedule wanted it sent, Sent when it was: Sent-Due is the
	// generator's own lag (the machine is shared: watch it).
	Due  time.Time
	Sent time.Time
	// Broker is the host:port the selector picked; empty when it had none to pick.
	Broker  string
	Latency time.Duration
	// Err is why the query failed: a transport failure, an HTTP status other than 200, an answer
	// carrying exceptions, or no broker to pick. Empty for a success and for a cancellation.
	Err string
	// Cancelled: no answer within Options.Timeout (the transport gave up, or the answer came late).
	Cancelled bool
}

// OK reports a success: an answer in time without exceptions.
func (r Record) OK() bool { return r.Err == "" && !r.Cancelled }

// Selection is the selector's broker list from At on: what the client picks from.
type Selection struct {
	At      time.Time
	Brokers []string
}

type recordLine struct {
	Index     int    `json:"i"`
	DueNs     int64  `json:"due_ns"`
	SentNs    int64  `json:"sent_ns"`
	Broker    string `json:"broker"`
	LatencyNs int64  `json:"latency_ns"`
	Err       string `json:"err"`
	Cancelled bool   `json:"cancelled"`
}

type selectionLine struct {
	AtNs    int64    `json:"at_ns"`
	Brokers []string `json:"brokers"`
}

// readRecords parses the program's records file, sorted by send time.
func readRecords(r io.Reader) ([]Record, error) {
	var out []Record
	err := eachLine(r, func(n int, b []byte) error {
		var l recordLine
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("record line %d: %w", n, err)
		}
		if l.SentNs <= 0 || l.LatencyNs < 0 {
			return fmt.Errorf("record line %d: sent_ns %d, latency_ns %d: want > 0 and ≥ 0", n, l.SentNs, l.LatencyNs)
		}
		out = append(out, Record{Index: l.Index, Due: time.Unix(0, l.DueNs), Sent: time.Unix(0, l.SentNs), Broker: l.Broker,
			Latency: time.Duration(l.LatencyNs), Err: l.Err, Cancelled: l.Cancelled})
		return nil
	})
	slices.SortStableFunc(out, func(a, b Record) int { return a.Sent.Compare(b.Sent) })
	return out, err
}

// readSelections parses the program's selections file, in the order written (time order).
func readSelections(r io.Reader) ([]Selection, error) {
	var out []Selection
	err := eachLine(r, func(n int, b []byte) error {
		var l selectionLine
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("selection line %d: %w", n, err)
		}
		out = append(out, Selection{At: time.Unix(0, l.AtNs), Brokers: l.Brokers})
		return nil
	})
	return out, err
}

// eachLine calls fn for every non-empty line. A last line cut short (the JVM killed mid-write) is
// not an error: it is dropped.
func eachLine(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return nil // a partial last line (no newline) is dropped
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if len(line) > 1 {
			if err := fn(n, line); err != nil {
				return err
			}
		}
	}
}
