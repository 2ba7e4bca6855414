package schedule

import (
	"slices"
	"testing"
)

func TestTypedCandidates(t *testing.T) {
	if got := TypedCandidates([]string{"t", "u_REALTIME"}); !slices.Equal(got, []string{"t_OFFLINE", "t_REALTIME", "u_REALTIME"}) {
		t.Errorf("TypedCandidates = %q", got)
	}
}
