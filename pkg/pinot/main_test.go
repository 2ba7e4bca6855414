package pinot

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test closes its servers and its client's idle connections: no goroutine
// (transport read loops above all) may outlive the package's tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
