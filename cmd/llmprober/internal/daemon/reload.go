package daemon

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
)

// errStopped is the error of a reload asked for while the daemon stops.
var errStopped = errors.New("llmprober is stopping")

// errNoReload is the error of a reload without a way to load the
// configuration again (llmprober demo).
var errNoReload = errors.New("this command cannot reload its configuration (llmprober run can)")

// errSuperseded is the error of a reload whose file was read before that of
// a reload that already finished: the later one's outcome stands.
var errSuperseded = errors.New("a later reload finished first; its outcome stands")

// snapshot is one read of the configuration file: its contents and their
// SHA-256 checksum, or the error of reading it.
type snapshot struct {
	data []byte
	sum  [32]byte
	err  error
}

// readConfig reads the file at path once through the bounded reader
// (config.ReadFile); the zero snapshot for no path.
func readConfig(path string) snapshot {
	if path == "" {
		return snapshot{}
	}
	data, err := config.ReadFile(path)
	if err != nil {
		return snapshot{err: err}
	}
	if data == nil {
		data = []byte{}
	}
	return snapshot{data: data, sum: sha256.Sum256(data)}
}

// Reload reads the configuration file once (through the bounded reader:
// a named pipe, a device, a directory or a file over 4 MiB fails at once),
// validates what it read and, when it is valid, reconciles the units with
// it. A file whose checksum is the running configuration's does nothing
// and counts no reload, unless the last reload failed (then it is loaded,
// and its success clears the failure). On any error the running
// configuration stays untouched, the error (naming file, line and field,
// or the file and the limit) is logged and returned, and
// llmprober_config_last_reload_successful is 0. The file and the files it
// names are read without holding the daemon's lock.
func (d *Daemon) Reload(ctx context.Context) error {
	gen := d.gen.Add(1)
	return d.load(ctx, gen, readConfig(d.opts.File))
}

// unchanged reports whether snap is the running configuration's file and
// the last reload succeeded: then a reload does nothing; errStopped once
// the daemon stops.
func (d *Daemon) unchanged(snap snapshot) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return false, errStopped
	}
	return d.opts.File != "" && snap.err == nil && snap.sum == d.sum && !d.failed, nil
}

// load parses and checks snap, the read of generation gen, without the
// lock, then reconciles the units with it under the lock, unless a reload
// of a later generation finished meanwhile.
func (d *Daemon) load(ctx context.Context, gen uint64, snap snapshot) error {
	if same, err := d.unchanged(snap); same || err != nil {
		return err
	}
	cfg, err := d.parse(snap)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.stopped:
		return errStopped
	case gen < d.done:
		return errSuperseded
	}
	d.done = gen
	if err == nil {
		err = d.reload(ctx, cfg)
	}
	d.metrics.Reloaded(err == nil, d.clk.Now())
	d.failed = err != nil
	if err != nil {
		d.logger.Error("configuration reload failed; the running configuration stays", "file", d.opts.File, "err", err)
		return err
	}
	d.sum = snap.sum
	return nil
}

// parse reads and checks the configuration of snap with Options.Reload
// (which reads the files it names); d.mu is not held.
func (d *Daemon) parse(snap snapshot) (*config.Config, error) {
	switch {
	case snap.err != nil:
		return nil, snap.err
	case d.opts.Reload == nil:
		return nil, errNoReload
	}
	return d.opts.Reload(snap.data)
}

// reload admits cfg, builds every new unit, then swaps them in; d.mu is
// held.
func (d *Daemon) reload(ctx context.Context, cfg *config.Config) error {
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

// watch reloads on every SIGHUP and, when enabled, whenever the file
// changed, until ctx ends.
func (d *Daemon) watch(ctx context.Context) {
	var tick <-chan time.Time
	if d.opts.AutoReloadInterval > 0 && d.opts.File != "" {
		t := time.NewTicker(d.opts.AutoReloadInterval)
		defer t.Stop()
		tick = t.C
	}
	var st pollState
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.opts.Hangup:
			d.logger.Info("reloading the configuration on SIGHUP", "file", d.opts.File)
			_ = d.Reload(ctx)
		case <-tick:
			d.poll(ctx, &st)
		}
	}
}

// pollState is what polling remembers from one poll to the next.
type pollState struct {
	// seen is the file's status when it was last read; nil for none.
	seen fs.FileInfo
	// tried is the checksum of the last file whose reload failed.
	tried [32]byte
	// absent is set while the path is missing or a directory (warned once).
	absent bool
}

// poll looks at the file's status first and reads it only when its size,
// modification time, mode or identity (inode) changed; it reloads when
// what it read differs from the running configuration (or the last reload
// failed) and from the last file that failed, so a bad file fails once, not
// at every poll. A missing file or a directory is warned about once and
// left alone.
func (d *Daemon) poll(ctx context.Context, st *pollState) {
	fi, err := os.Stat(d.opts.File)
	if err != nil || fi.IsDir() {
		d.pollAbsent(st, err)
		return
	}
	if st.absent {
		st.absent = false
		d.logger.Info("the configuration file is back", "file", d.opts.File)
	}
	if st.seen != nil && sameFile(st.seen, fi) {
		return
	}
	st.seen = fi
	gen := d.gen.Add(1)
	snap := readConfig(d.opts.File)
	if snap.err == nil && snap.sum == st.tried {
		return
	}
	if same, err := d.unchanged(snap); same || err != nil {
		return
	}
	d.logger.Info("the configuration file changed; reloading", "file", d.opts.File)
	st.tried = [32]byte{}
	if err := d.load(ctx, gen, snap); err != nil && snap.err == nil {
		st.tried = snap.sum
	}
}

// pollAbsent warns, once until a file is back, that the configuration
// path holds no file (err is the stat error, nil for a directory).
func (d *Daemon) pollAbsent(st *pollState, err error) {
	st.seen = nil
	if st.absent {
		return
	}
	st.absent = true
	what := "a directory"
	if err != nil {
		what = err.Error()
	}
	d.logger.Warn("no configuration file to poll; the running configuration stays until one is back",
		"file", d.opts.File, "found", what)
}

// sameFile reports whether a and b are the status of one unchanged file:
// the same identity (device and inode), size, modification time and mode.
func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode()
}
