package zkclient

import (
	"strings"
	"testing"
	"time"
)

func TestReadRecordsSortsBySendAndDropsACutLastLine(t *testing.T) {
	in := `{"i":1,"due_ns":1990000000,"sent_ns":2000000000,"broker":"127.0.0.1:24002","latency_ns":5000000}
{"i":0,"sent_ns":1000000000,"latency_ns":0,"err":"no broker: none ONLINE"}
{"i":2,"sent_ns":3000000000,"broker":"127.0.0.1:24002","latency_ns":2000000000,"cancelled":true}
{"i":3,"sent_ns":40000`
	recs, err := readRecords(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3 (the cut line dropped): %+v", len(recs), recs)
	}
	if recs[0].Index != 0 || recs[0].Broker != "" || recs[0].OK() || !strings.HasPrefix(recs[0].Err, "no broker") {
		t.Errorf("first record %+v: want the no-broker failure, sorted first", recs[0])
	}
	if !recs[1].OK() || recs[1].Latency != 5*time.Millisecond || !recs[1].Sent.Equal(time.Unix(2, 0)) || recs[1].Sent.Sub(recs[1].Due) != 10*time.Millisecond {
		t.Errorf("second record %+v: want a 5ms success at t=2s, sent 10ms late", recs[1])
	}
	if !recs[2].Cancelled || recs[2].OK() {
		t.Errorf("third record %+v: want cancelled", recs[2])
	}
}

func TestReadRecordsRejectsGarbage(t *testing.T) {
	for in, want := range map[string]string{
		"{\"i\":0,\"sent_ns\":0,\"latency_ns\":1}\n": "record line 1: sent_ns 0",
		"not json\n": "record line 1: invalid character",
	} {
		if _, err := readRecords(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
}

func TestReadSelections(t *testing.T) {
	in := `{"at_ns":1000,"brokers":["127.0.0.1:24002"]}
{"at_ns":2000,"brokers":[]}
`
	sels, err := readSelections(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(sels) != 2 || len(sels[0].Brokers) != 1 || len(sels[1].Brokers) != 0 || !sels[1].At.Equal(time.Unix(0, 2000)) {
		t.Fatalf("selections %+v", sels)
	}
}
