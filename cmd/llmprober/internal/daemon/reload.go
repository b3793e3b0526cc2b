package daemon

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
)

// errStopped is the error of a reload asked for while the daemon stops.
var errStopped = errors.New("llmprober is stopping")

// errNoReload is the error of a reload without a way to load the
// configuration again (llmprober demo).
var errNoReload = errors.New("this command cannot reload its configuration (llmprober run can)")

// Reload loads and validates the configuration again and, when it is
// valid, reconciles the units with it; a file whose checksum is the
// running configuration's does nothing and counts no reload, unless the
// last reload failed (then it is loaded, and its success clears the
// failure). On any error the running
// configuration stays untouched, the error (naming file, line and field) is
// logged and returned, and llmprober_config_last_reload_successful is 0.
func (d *Daemon) Reload(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return errStopped
	}
	sum, err := fileSum(d.opts.File)
	if err == nil && d.opts.File != "" && sum == d.sum && !d.failed {
		return nil
	}
	if err == nil {
		err = d.reload(ctx)
	}
	d.metrics.Reloaded(err == nil, d.clk.Now())
	d.failed = err != nil
	if err != nil {
		d.logger.Error("configuration reload failed; the running configuration stays", "file", d.opts.File, "err", err)
		return err
	}
	d.sum = sum
	return nil
}

// reload validates the new configuration whole, builds every new unit,
// then swaps them in; d.mu is held.
func (d *Daemon) reload(ctx context.Context) error {
	if d.opts.Reload == nil {
		return errNoReload
	}
	cfg, err := d.opts.Reload()
	if err != nil {
		return err
	}
	if err := d.admit(cfg); err != nil {
		return fmt.Errorf("%w:\n%w", wiring.ErrInvalid, err)
	}
	p, err := d.plan(cfg)
	if err != nil {
		return fmt.Errorf("%w:\n%w", wiring.ErrInvalid, err)
	}
	if err := ctx.Err(); err != nil {
		p.discard()
		return err
	}
	d.apply(p)
	if d.opts.Level != nil {
		wiring.SetLevel(d.opts.Level, cfg.LogLevel)
	}
	d.running.Store(cfg)
	d.logger.Info("configuration reloaded", "file", d.opts.File, "targets", len(cfg.Targets),
		"added", len(p.added), "changed", len(p.changed), "removed", len(p.removed), "unchanged", p.unchanged)
	return nil
}

// fileSum returns the SHA-256 checksum of path; zero for no path.
func fileSum(path string) ([32]byte, error) {
	if path == "" {
		return [32]byte{}, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return [32]byte{}, fmt.Errorf("could not read the configuration: %w", err)
	}
	return sha256.Sum256(b), nil
}

// watch reloads on every SIGHUP and, when enabled, whenever the file's
// checksum changes, until ctx ends.
func (d *Daemon) watch(ctx context.Context) {
	var tick <-chan time.Time
	if d.opts.AutoReloadInterval > 0 && d.opts.File != "" {
		t := time.NewTicker(d.opts.AutoReloadInterval)
		defer t.Stop()
		tick = t.C
	}
	var tried [32]byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.opts.Hangup:
			d.logger.Info("reloading the configuration on SIGHUP", "file", d.opts.File)
			_ = d.Reload(ctx)
		case <-tick:
			d.poll(ctx, &tried)
		}
	}
}

// poll reloads when the file's checksum differs from the running one and
// from the last one tried, so a bad file fails once, not at every poll.
func (d *Daemon) poll(ctx context.Context, tried *[32]byte) {
	sum, err := fileSum(d.opts.File)
	d.mu.Lock()
	same := err == nil && sum == d.sum
	d.mu.Unlock()
	if same || (err == nil && sum == *tried) {
		return
	}
	*tried = sum
	d.logger.Info("the configuration file changed; reloading", "file", d.opts.File)
	_ = d.Reload(ctx)
}
