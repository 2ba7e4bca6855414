package coldstart

import (
	"testing"

	"go.uber.org/goleak"
)

// Every query goroutine must be joined by RunLoad, and every test closes its servers and
// clients: any goroutine left at the end fails the package.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
