package config

import (
	"strings"
	"testing"
)

// TestBrokerURLShape: the broker URL is scheme://host[:port] and nothing else —
// a path would make every call (/health too) answer 404, white space around it
// is a copy-paste slip. One trailing / is dropped.
func TestBrokerURLShape(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  string // the URL kept; "" when refused
		says  string // what the refusal must say
	}{
		{value: "http://127.0.0.1:8099", want: "http://127.0.0.1:8099"},
		{value: "http://127.0.0.1:8099/", want: "http://127.0.0.1:8099"},
		{value: "https://broker.example:8443/", want: "https://broker.example:8443"},
		{value: "http://broker", want: "http://broker"},
		{value: "http://b:8099/foo", says: "no path"},
		{value: "http://b:8099/query/sql", says: "no path"},
		{value: "http://b:8099//", says: "no path"},
		{value: "http://b:8099?x=1", says: "no path, query"},
		{value: "http://b:8099/?x=1", says: "no path, query"},
		{value: "http://b:8099#top", says: "no path, query or fragment"},
		{value: " http://b:8099", says: "white space"},
		{value: "http://b:8099 ", says: "white space"},
		{value: "http://b:8099\n", says: "white space"},
		{value: "\thttp://b:8099", says: "white space"},
	} {
		c, _, err := LoadFrom([]string{ctl, "WARMUP_BROKER_URL=" + tc.value})
		if tc.want != "" {
			if err != nil || c.BrokerURL != tc.want {
				t.Errorf("%q: BrokerURL %q, error %v; want %q", tc.value, c.BrokerURL, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q: accepted as %q", tc.value, c.BrokerURL)
			continue
		}
		msg := err.Error()
		for _, w := range []string{"WARMUP_BROKER_URL=", tc.says, "scheme://host:port", "http://127.0.0.1:8099"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: error %q lacks %q", tc.value, msg, w)
			}
		}
		if strings.ContainsAny(msg, "\n\r") {
			t.Errorf("%q: error spans lines: %q", tc.value, msg)
		}
	}
}
