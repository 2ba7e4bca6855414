package rollout

import (
	"context"
	"fmt"
	"time"
)

// podReadyTimeout bounds one pod's wait for Ready: the probe's initial delay, a JVM start on a
// busy machine, the sidecar's budget.
const podReadyTimeout = 6 * time.Minute

// Rollout replaces every pod with one from t as a StatefulSet RollingUpdate does: from the
// highest ordinal down, delete the pod, wait until its containers are gone, create its
// replacement, wait until it is Ready and has stayed Ready for MinReady, then the next.
func (f *Fleet) Rollout(ctx context.Context, t Template, tag string) error {
	for i := len(f.pods) - 1; i >= 0; i-- {
		f.mu.Lock()
		exists := f.pods[i] != nil
		f.mu.Unlock()
		if !exists {
			continue
		}
		if err := f.remove(ctx, i); err != nil {
			return fmt.Errorf("rollout %s: %w", tag, err)
		}
		if err := f.create(ctx, i, t, tag); err != nil {
			return fmt.Errorf("rollout %s: %w", tag, err)
		}
		if err := f.waitAvailable(ctx, i); err != nil {
			return fmt.Errorf("rollout %s: %w", tag, err)
		}
	}
	return nil
}

// ScaleOut adds one pod from t in the first free slot (the next ordinal) and waits until it is
// available; it returns the new pod's ordinal.
func (f *Fleet) ScaleOut(ctx context.Context, t Template, tag string) (int, error) {
	f.mu.Lock()
	i := -1
	for j, p := range f.pods {
		if p == nil {
			i = j
			break
		}
	}
	f.mu.Unlock()
	if i < 0 {
		return 0, fmt.Errorf("scale out %s: every slot is taken", tag)
	}
	if err := f.create(ctx, i, t, tag); err != nil {
		return i, fmt.Errorf("scale out %s: %w", tag, err)
	}
	if err := f.waitAvailable(ctx, i); err != nil {
		return i, fmt.Errorf("scale out %s: %w", tag, err)
	}
	return i, nil
}

// ScaleIn deletes pod i (the StatefulSet removes its highest ordinal).
func (f *Fleet) ScaleIn(ctx context.Context, i int) error { return f.remove(ctx, i) }

// waitAvailable waits until pod i is Ready and has stayed so for MinReady, failing early if its
// broker or sidecar exits.
func (f *Fleet) waitAvailable(ctx context.Context, i int) error {
	ctx, cancel := context.WithTimeout(ctx, podReadyTimeout)
	defer cancel()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	var since time.Time
	for {
		f.mu.Lock()
		p := f.pods[i]
		ready := p != nil && p.ready
		f.mu.Unlock()
		switch {
		case p == nil:
			return fmt.Errorf("pod %d vanished while starting", i)
		case p.b.PID() == 0:
			return fmt.Errorf("pod %d: the broker exited while starting; see %s", i, p.b.LogPath())
		case p.sc != nil:
			if done, _ := p.sc.Exited(); done {
				return fmt.Errorf("pod %d: the sidecar exited while starting", i)
			}
		}
		if !ready {
			since = time.Time{}
		} else if since.IsZero() {
			since = time.Now()
		}
		if ready && time.Since(since) >= f.model.MinReady {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod %d not available after %s: %w", i, podReadyTimeout, ctx.Err())
		case <-t.C:
		}
	}
}
