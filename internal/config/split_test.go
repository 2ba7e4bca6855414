package config

import (
	"reflect"
	"testing"
)

func TestSplitTables(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"orders", []string{"orders"}},
		{" orders , clicks ", []string{"orders", "clicks"}},
		{"b,a,b,a", []string{"b", "a"}},
		{"orders,,clicks,\n", []string{"orders", "clicks"}},
		{"Orders,orders", []string{"Orders", "orders"}},
	}
	for _, tc := range cases {
		if got := SplitTables(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitTables(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
