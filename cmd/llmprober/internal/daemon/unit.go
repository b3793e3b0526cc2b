package daemon

import (
	"context"
	"crypto/sha256"
	"errors"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// errReload is the cause of the cancellation of a unit that a reload
// removes or replaces: its requests in flight are recorded as incomplete
// (canceled), their error text saying "reload".
var errReload = errors.New("reload: the target was removed or replaced by a configuration reload")

// unit is one target at run time: its configuration (defaults applied),
// prober, backend and HTTP client (wired), and window store. Its events go
// to the daemon's observer and log observer and to its store.
type unit struct {
	cfg config.Target
	// key is the SHA-256 of the API key the unit sends, so that a key
	// rotated in its file or variable counts as a change.
	key   [32]byte
	wired *wiring.Wired
	store *window.Store

	cancel context.CancelCauseFunc
	done   chan struct{}
}

// newUnit wires t under cfg; store, when not nil, is the window store it
// continues, else it gets a new one. Nothing starts and nothing is
// registered: a reload builds every unit before changing anything.
func (d *Daemon) newUnit(cfg *config.Config, t *config.Target, store *window.Store) (*unit, error) {
	var err error
	if store == nil {
		if store, err = wiring.NewWindowStore(cfg, t, d.clk); err != nil {
			return nil, err
		}
	}
	obs := probe.Observers{d.observer, d.logs, store}
	w, err := wiring.WireTarget(t, d.clk, obs, d.logs, d.logger)
	if err != nil {
		return nil, err
	}
	key, _ := keySum(t)
	return &unit{cfg: *t, key: key, wired: w, store: store, done: make(chan struct{})}, nil
}

// join registers a new target's unit with the observer and the windows.
func (u *unit) join(d *Daemon) error {
	if err := d.observer.Add(u.wired.Info); err != nil {
		return err
	}
	return d.windows.Add(u.store)
}

// leave unregisters a removed target's unit: its series leave /metrics,
// and the log observer forgets it.
func (u *unit) leave(d *Daemon) {
	d.windows.Remove(u.cfg.Name)
	d.observer.Remove(u.cfg.Name)
	d.logs.Forget(u.cfg.Name)
}

// takeOver registers u in place of the unit of the same name, whose
// counters and status it continues; windows restart unless u continues
// the old unit's store, which then reports u's objective attainment and
// period.
func (u *unit) takeOver(d *Daemon) error {
	if err := u.store.Retarget(u.cfg.SLOObjectives()); err != nil {
		return err
	}
	if _, err := d.observer.Replace(u.wired.Info); err != nil {
		return err
	}
	d.windows.Replace(u.store)
	return nil
}

// start runs the prober (start-up gate first) until stop or ctx ends.
func (u *unit) start(ctx context.Context) {
	ctx, u.cancel = context.WithCancelCause(ctx)
	go func() {
		defer close(u.done)
		_ = u.wired.Prober.Run(ctx)
	}()
}

// stop cancels the prober with cause (requests in flight are recorded as
// incomplete) and waits for its goroutines; a unit never started returns
// at once.
func (u *unit) stop(cause error) {
	if u.cancel == nil {
		return
	}
	u.cancel(cause)
	<-u.done
	u.wired.Client.CloseIdleConnections()
}

// keySum is the SHA-256 of t's API key; zero without one.
func keySum(t *config.Target) ([32]byte, error) {
	key, err := t.APIKey()
	if err != nil || key == "" {
		return [32]byte{}, err
	}
	return sha256.Sum256([]byte(key)), nil
}
