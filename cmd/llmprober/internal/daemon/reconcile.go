package daemon

import (
	"reflect"
	"slices"
	"strings"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/slo"
)

// plan is what a reload changes, built whole before anything is changed.
type plan struct {
	added   []*unit
	changed []change
	removed []*unit
	// unchanged counts the targets kept running untouched.
	unchanged int
}

// change is a target whose settings changed: the unit replacing the
// running one, and what the log says of its windows.
type change struct {
	old, new *unit
	// restarted names the settings that changed what is measured, which
	// restart the windows; empty when they continue.
	restarted []string
}

// plan matches cfg's targets with the running units by name and wires
// every added and changed one; on error nothing was started or
// registered.
func (d *Daemon) plan(cfg *config.Config) (*plan, error) {
	p := &plan{}
	seen := map[string]bool{}
	for i := range cfg.Targets {
		t := &cfg.Targets[i]
		seen[t.Name] = true
		old := d.units[t.Name]
		if old != nil && reflect.DeepEqual(old.cfg, *t) && sameKey(old, t) {
			p.unchanged++
			continue
		}
		if err := p.add(d, cfg, t, old); err != nil {
			p.discard()
			return nil, err
		}
	}
	for name, u := range d.units {
		if !seen[name] {
			p.removed = append(p.removed, u)
		}
	}
	return p, nil
}

// add wires the new unit of t, continuing old's windows when what is
// measured did not change.
func (p *plan) add(d *Daemon, cfg *config.Config, t *config.Target, old *unit) error {
	if old == nil {
		u, err := d.newUnit(cfg, t, nil)
		if err == nil {
			p.added = append(p.added, u)
		}
		return err
	}
	restarted := measured(&old.cfg, t)
	store := old.store
	if len(restarted) > 0 {
		store = nil
	}
	u, err := d.newUnit(cfg, t, store)
	if err == nil {
		p.changed = append(p.changed, change{old: old, new: u, restarted: restarted})
	}
	return err
}

// discard closes what a plan built but never started.
func (p *plan) discard() {
	for _, u := range p.added {
		u.wired.Client.CloseIdleConnections()
	}
	for _, c := range p.changed {
		c.new.wired.Client.CloseIdleConnections()
	}
}

// apply stops the removed units (their series leave the exposition),
// replaces the changed ones and starts the added ones; d.mu is held.
func (d *Daemon) apply(p *plan) {
	for _, u := range p.removed {
		u.stop(errReload)
		u.leave(d)
		delete(d.units, u.cfg.Name)
		d.logger.Info("target removed", "target", u.cfg.Name)
	}
	for _, c := range p.changed {
		c.old.stop(errReload)
		if err := c.new.takeOver(d); err != nil {
			d.logger.Error("could not replace target", "target", c.new.cfg.Name, "err", err)
			continue
		}
		d.units[c.new.cfg.Name] = c.new
		d.startUnit(c.new)
		d.logChange(c)
	}
	for _, u := range p.added {
		if err := u.join(d); err != nil {
			d.logger.Error("could not add target", "target", u.cfg.Name, "err", err)
			continue
		}
		d.units[u.cfg.Name] = u
		d.startUnit(u)
		d.logger.Info("target added", "target", u.cfg.Name)
	}
}

// startUnit starts u once the daemon runs (before Run, Run starts it).
func (d *Daemon) startUnit(u *unit) {
	if d.probeCtx != nil {
		u.start(d.probeCtx)
	}
}

// logChange says what a changed target keeps.
func (d *Daemon) logChange(c change) {
	if len(c.restarted) == 0 {
		d.logger.Info("target changed; its counters and windows continue", "target", c.new.cfg.Name)
		return
	}
	d.logger.Info("target changed; its counters continue, its windows restart", "target", c.new.cfg.Name,
		"because", strings.Join(c.restarted, ", "))
}

// measured returns the settings (YAML keys) that differ between a and b
// and change what the windows measure: the server, model, API, backend,
// stream, workload, realtime settings and the audio they send (a rewritten
// audio file counts), and the names and thresholds of the objective sets. Schedule, headers, tag, timeout, auth, TLS, readiness,
// and the objective sets' attainment and period do not (the windows are
// retargeted, see window.Store.Retarget).
func measured(a, b *config.Target) []string {
	var out []string
	for _, f := range []struct {
		key  string
		a, b any
	}{
		{"base_url", a.BaseURL, b.BaseURL}, {"model", a.Model, b.Model}, {"api", a.API, b.API},
		{"backend", a.Backend, b.Backend}, {"stream", a.Stream, b.Stream}, {"provider", a.Provider, b.Provider},
		{"workload", a.Workload, b.Workload}, {"realtime", a.Realtime, b.Realtime}, {"realtime.audio_file", audio(a), audio(b)},
		{"objectives", measuredObjectives(a), measuredObjectives(b)},
	} {
		if !reflect.DeepEqual(f.a, f.b) {
			out = append(out, f.key)
		}
	}
	return slices.Clip(out)
}

// audio returns the audio t sends, as its configuration's check decoded
// it; nil when it sends none or it cannot be decoded.
func audio(t *config.Target) []byte {
	a, err := t.Assets()
	if err != nil {
		return nil
	}
	return a.Audio
}

// sameKey reports whether t's API key is the one u sends.
func sameKey(u *unit, t *config.Target) bool {
	key, err := keySum(t)
	return err == nil && key == u.key
}

// measuredObjectives is what the windows measure of t's objective sets:
// their names and thresholds.
func measuredObjectives(t *config.Target) []slo.Objective {
	out := t.SLOObjectives()
	for i := range out {
		out[i].Attainment, out[i].Period = 0, 0
	}
	return out
}
