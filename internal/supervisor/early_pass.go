package supervisor

import (
	"context"
	"sync"
)

// pass lets the early queries go or holds them: shut until the wait's first
// /health answer, and again while the broker says it is shutting down.
type pass struct {
	mu   sync.Mutex
	open bool
	ch   chan struct{} // closed while open
}

func newPass() pass { return pass{ch: make(chan struct{})} }

// set opens or shuts the pass.
func (p *pass) set(open bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if open == p.open {
		return
	}
	if p.open = open; open {
		close(p.ch)
	} else {
		p.ch = make(chan struct{})
	}
}

// wait returns once the pass is open (true) or ctx ended (false).
func (p *pass) wait(ctx context.Context) bool {
	p.mu.Lock()
	ch := p.ch
	p.mu.Unlock()
	select {
	case <-ch:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}
