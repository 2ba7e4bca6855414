package cluster

import (
	"bytes"
	"strings"
	"testing"
)

// An id beginning with '-' is drawn again: the storage tool would read it as an option.
func TestKafkaClusterIDNeverBeginsWithADash(t *testing.T) {
	// 0xF8 = 111110 00: the first base64 sextet is 62, '-' in the URL alphabet.
	dash := append([]byte{0xF8}, bytes.Repeat([]byte{1}, 15)...)
	plain := bytes.Repeat([]byte{2}, 16)
	id, err := kafkaClusterID(bytes.NewReader(append(dash, plain...)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(id, "-") || len(id) != 22 {
		t.Fatalf("id %q: want 22 characters not beginning with '-'", id)
	}
	if want := "AgICAgICAgICAgICAgICAg"; id != want {
		t.Fatalf("id %q: want the second draw %q", id, want)
	}
}

func TestKafkaClusterIDShortRead(t *testing.T) {
	if _, err := kafkaClusterID(bytes.NewReader([]byte{1, 2, 3})); err == nil || !strings.Contains(err.Error(), "kafka cluster id") {
		t.Fatalf("err %v: want a kafka cluster id error", err)
	}
}
