package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/testsupport"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe/realtime"
	"github.com/llmprober/llmprober/probe/sim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer = testsupport.SyncBuffer

// fleet is a configuration of n targets of the simulated endpoint at base,
// each at rate requests per second.
func fleet(base string, n int, rate float64) string {
	var b strings.Builder
	b.WriteString("windows: [1m]\nwarmup: 0s\ntargets:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: t%02d, base_url: %s/v1, model: %s, readiness: {path: none}, workload: {prompt_tokens: 8, output_tokens: 4}, schedule: {rate: %g, max_concurrency: 8}}\n",
			i, base, sim.DefaultModel, rate)
	}
	return b.String()
}

// load reads and checks the file at path as run does.
func load(path string) (*config.Config, error) { return loadData(path, nil) }

// loadData checks data, the contents of the file at path (read again when
// nil), as run does.
func loadData(path string, data []byte) (*config.Config, error) {
	env, err := config.FromEnv(map[string]string{})
	if err != nil {
		return nil, err
	}
	cfg, err := config.Resolve(env, config.Overrides{ConfigPath: path, ListenAddress: "127.0.0.1:0", ConfigData: data})
	if err != nil {
		return nil, err
	}
	return cfg, cfg.Check()
}

// started is a daemon running in the test's process.
type started struct {
	d      *Daemon
	base   string
	hangup chan struct{}
	logs   *syncBuffer
	stop   func() error
}

var listening = regexp.MustCompile(`metrics:\s+(http://\S+)/metrics`)

// start runs a daemon on the configuration file at path.
func start(t *testing.T, path string) *started { return startWith(t, path, nil) }

// startWith runs a daemon on the configuration file at path, with the
// options edit changes (when not nil).
func startWith(t *testing.T, path string, edit func(*Options)) *started {
	t.Helper()
	cfg, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &started{hangup: make(chan struct{}, 1), logs: &syncBuffer{}}
	o := Options{
		Config: cfg, Logger: slog.New(slog.NewTextHandler(s.logs, nil)), Getenv: func(string) string { return "" },
		Reload: func(data []byte) (*config.Config, error) { return loadData(path, data) }, File: path, Hangup: s.hangup,
		EnableLifecycle: true,
	}
	if edit != nil {
		edit(&o)
	}
	s.d, err = New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- s.d.Run(ctx, cfg.ListenAddress, out) }()
	s.stop = sync.OnceValue(func() error { cancel(); return <-done })
	t.Cleanup(func() { _ = s.stop(); http.DefaultClient.CloseIdleConnections() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			s.base = m[1]
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address printed; log:\n%s", s.logs.String())
		}
	}
}

// scrape returns /metrics.
func (s *started) scrape(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics answered %d", resp.StatusCode)
	}
	return string(b)
}

// sum adds the values of the samples of text whose line starts with
// prefix and carries every label of labels.
func sum(text, prefix string, labels ...string) float64 {
	var total float64
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		all := true
		for _, lb := range labels {
			all = all && strings.Contains(l, lb)
		}
		if !all {
			continue
		}
		v, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
		if err == nil {
			total += v
		}
	}
	return total
}

func write(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // as a ConfigMap swap: whole files only
		t.Fatal(err)
	}
}

// A reload storm: 100 SIGHUPs within a second while 10 targets are probed
// at 50 requests per second in all, the file rewritten between them (the
// rate of every target alternating, so each reload replaces every unit).
// At the end exactly the last configuration runs, every target's finished
// requests plus those in flight are its sent ones (none lost, none counted
// twice), /metrics serves throughout, and no goroutine is left (goleak).
func TestReloadStorm(t *testing.T) {
	s, err := sim.Start(sim.Config{OutputTokens: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(t.TempDir(), "c.yml")
	write(t, path, fleet(s.URL(), 10, 5))
	d := start(t, path)
	deadline := time.Now().Add(time.Second)
	for i := range 100 {
		if i%10 == 0 {
			write(t, path, fleet(s.URL(), 10, 5+float64(i%20)/10))
		}
		select {
		case d.hangup <- struct{}{}:
		default: // one already waits: SIGHUPs coalesce
		}
		if i%25 == 0 {
			_ = d.scrape(t)
		}
		time.Sleep(time.Until(deadline) / time.Duration(100-i))
	}
	last := fleet(s.URL(), 10, 6)
	write(t, path, last)
	d.hangup <- struct{}{}
	want, _ := load(path)
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		got := d.d.running.Load()
		if got.Targets[0].Schedule.Rate == want.Targets[0].Schedule.Rate {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the last configuration never ran; log:\n%s", d.logs.String())
		}
	}
	d.d.mu.Lock()
	for name, u := range d.d.units {
		if u.cfg.Schedule.Rate != 6 {
			t.Errorf("unit %s runs at rate %v, want 6", name, u.cfg.Schedule.Rate)
		}
	}
	units := len(d.d.units)
	d.d.mu.Unlock()
	if units != 10 {
		t.Errorf("%d units, want 10", units)
	}
	// Every target keeps probing under the last configuration.
	for begin := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		st := d.d.observer.Status()
		least := st[0].Probes.Sent
		for _, ts := range st {
			least = min(least, ts.Probes.Sent)
		}
		if least >= 3 {
			break
		}
		if time.Since(begin) > 15*time.Second {
			t.Fatalf("a target sent fewer than 3 requests: %+v", st)
		}
	}
	text := d.scrape(t)
	if n := sum(text, "llmprober_config_reloads_total", `outcome="failure"`); n != 0 {
		t.Errorf("%v failed reloads in the storm:\n%s", n, d.logs.String())
	}
	// 11 distinct files (10 in the storm, the last one); coalesced SIGHUPs
	// and unchanged checksums reload nothing.
	ok := sum(text, "llmprober_config_reloads_total", `outcome="success"`)
	if ok < 1 || ok > 11 {
		t.Errorf("%v successful reloads, want 1 to 11 (one per distinct file at most)", ok)
	}
	t.Logf("%v reloads; t00 sent %v", ok, sum(text, "llmprober_probes_scheduled_total", `target="t00"`))
	if err := d.stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
	// Stopped, every request has ended: each target's due requests are its
	// sent and dropped ones, each sent one finished once in the observer,
	// and once in its windows, which every reload continued (only the
	// schedule changed).
	for _, ts := range d.d.observer.Status() {
		var finished uint64
		for _, n := range ts.Counts {
			finished += n
		}
		p := ts.Probes
		u := d.d.units[ts.Target.Name]
		// Past the snapshot cache (1 s), so the snapshot holds the last records.
		snap := u.store.Snapshot(d.d.clk.Now().Add(2*time.Second), time.Minute)
		if p.Scheduled != p.Sent+p.DroppedTotal() || finished != p.Sent || uint64(snap.Requests.All) != finished {
			t.Errorf("%s: scheduled %d, sent %d, dropped %d, finished %d, in its window %d; want scheduled = sent + dropped, sent = finished = windowed",
				ts.Target.Name, p.Scheduled, p.Sent, p.DroppedTotal(), finished, snap.Requests.All)
		}
	}
}

// Shutdown while reloads run: Run returns within its bound and leaves no
// goroutine (goleak).
func TestShutdownDuringReload(t *testing.T) {
	s, err := sim.Start(sim.Config{OutputTokens: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(t.TempDir(), "c.yml")
	write(t, path, fleet(s.URL(), 5, 10))
	d := start(t, path)
	var wg sync.WaitGroup
	stopReloads := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stopReloads:
				return
			default:
			}
			write(t, path, fleet(s.URL(), 5, 10+float64(i%7)))
			_ = d.d.Reload(context.Background())
		}
	})
	time.Sleep(300 * time.Millisecond)
	begin := time.Now()
	err = d.stop()
	if took := time.Since(begin); took > 10*time.Second {
		t.Errorf("Run took %v to stop during reloads", took)
	}
	close(stopReloads)
	wg.Wait()
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := d.d.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), "stopping") {
		t.Errorf("a reload after the stop answered %v, want the daemon stopping", err)
	}
}

// The settings that change what is measured, and only those, restart a
// changed target's windows.
func TestMeasured(t *testing.T) {
	base := config.Target{Name: "a", BaseURL: "http://x/v1", Model: "m", Timeout: time.Second,
		Schedule: config.Schedule{Rate: 1}, Headers: map[string]string{"X-A": "1"}}
	for _, tc := range []struct {
		name   string
		change func(*config.Target)
		want   string
	}{
		{"schedule", func(t *config.Target) { t.Schedule.Rate = 2 }, ""},
		{"headers, tag, timeout", func(t *config.Target) { t.Headers = nil; t.Tag = "x"; t.Timeout = time.Minute }, ""},
		{"model", func(t *config.Target) { t.Model = "n" }, "model"},
		{"server and workload", func(t *config.Target) { t.BaseURL = "http://y/v1"; t.Workload.Seed = 3 }, "base_url, workload"},
		{"objectives", func(t *config.Target) { t.Objectives = []config.Objective{{Name: "o"}} }, "objectives"},
	} {
		b := base
		tc.change(&b)
		if got := strings.Join(measured(&base, &b), ", "); got != tc.want {
			t.Errorf("%s: measured = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := measured(rewrittenAudio(t)); !slices.Equal(got, []string{"realtime.audio_file"}) {
		t.Errorf("rewritten audio file: measured = %v, want [realtime.audio_file]", got)
	}
	ttft := 500 * time.Millisecond
	a, b := base, base
	a.Objectives = []config.Objective{{Name: "o", TTFT: &ttft, Attainment: new(0.99), Period: config.Period(720 * time.Hour)}}
	b.Objectives = []config.Objective{{Name: "o", TTFT: &ttft, Attainment: new(0.9), Period: config.Period(168 * time.Hour)}}
	if got := measured(&a, &b); len(got) != 0 {
		t.Errorf("attainment and period: measured = %v, want nothing (the windows are retargeted)", got)
	}
}

// rewrittenAudio returns a realtime target checked before its audio file
// was rewritten with other audio of the same format, and the same target
// checked after.
func rewrittenAudio(t *testing.T) (*config.Target, *config.Target) {
	dir := t.TempDir()
	file, path := filepath.Join(dir, "a.wav"), filepath.Join(dir, "c.yml")
	write(t, path, "targets:\n  - name: rt\n    base_url: http://127.0.0.1:1/v1\n    model: m\n    backend: openai_websocket\n"+
		"    realtime: {audio_file: a.wav, pacing: fast}\n")
	var out [2]*config.Target
	for i, d := range []time.Duration{time.Second, 2 * time.Second} {
		if err := os.WriteFile(file, realtime.EncodeWAV(realtime.Tone(d)), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := load(path)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = &cfg.Targets[0]
	}
	return out[0], out[1]
}

// What a running process cannot change fails the reload, names the
// setting, and leaves the running configuration; a threshold at a bucket
// boundary the histograms have is accepted.
func TestReloadRefusesFixedSettings(t *testing.T) {
	s, err := sim.Start(sim.Config{OutputTokens: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(t.TempDir(), "c.yml")
	base := fleet(s.URL(), 1, 2)
	write(t, path, base)
	d := start(t, path)
	for _, tc := range []struct{ name, file, want string }{
		{"windows", strings.Replace(base, "windows: [1m]", "windows: [2m]", 1), "windows: cannot change without a restart"},
		{"warmup", strings.Replace(base, "warmup: 0s", "warmup: 5s", 1), "warmup: cannot change without a restart"},
		{"new threshold", strings.TrimSuffix(base, "}\n") + ", objectives: [{name: fast, ttft: 123ms}]}\n", "thresholds [0.123] (seconds) are not bucket boundaries of the running histogram llmprober.time_to_first_token"},
	} {
		write(t, path, tc.file)
		if err := d.d.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: reload error %v, want %q", tc.name, err, tc.want)
		}
	}
	if got := d.d.running.Load(); got.Warmup != 0 || len(got.Targets[0].Objectives) != 0 {
		t.Errorf("a refused reload changed the running configuration: %+v", got)
	}
	write(t, path, strings.TrimSuffix(base, "}\n")+", objectives: [{name: fast, ttft: 500ms}]}\n")
	if err := d.d.Reload(context.Background()); err != nil {
		t.Errorf("a threshold at a default boundary (500ms): %v", err)
	}
	if !strings.Contains(d.logs.String(), "because=objectives") {
		t.Errorf("the log does not say the windows restart for the objectives:\n%s", d.logs.String())
	}
	d.d.mu.Lock()
	store := d.d.units["t00"].store
	d.d.mu.Unlock()
	write(t, path, strings.TrimSuffix(base, "}\n")+", objectives: [{name: fast, ttft: 500ms, attainment: 0.9}]}\n")
	if err := d.d.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	d.d.mu.Lock()
	kept := d.d.units["t00"].store
	d.d.mu.Unlock()
	if kept != store || kept.Objectives()[0].Attainment != 0.9 {
		t.Errorf("an attainment change: store kept %v, attainment %v; want the same store retargeted to 0.9", kept == store, kept.Objectives()[0].Attainment)
	}
	if !strings.Contains(d.logs.String(), "its counters and windows continue") {
		t.Errorf("the log does not say the windows continue:\n%s", d.logs.String())
	}
}

// Requests in flight when a reload replaces or removes their target are
// recorded as incomplete (canceled), their error text saying "reload"; a
// replaced target's counts continue.
func TestReloadCancelsInFlight(t *testing.T) {
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: time.Minute}, OutputTokens: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(t.TempDir(), "c.yml")
	write(t, path, fleet(s.URL(), 2, 20))
	d := start(t, path)
	inFlight := func(target string) float64 {
		return sum(d.scrape(t), "llmprober_requests_in_flight", `target="`+target+`"`)
	}
	for begin := time.Now(); inFlight("t00") < 2 || inFlight("t01") < 2; time.Sleep(20 * time.Millisecond) {
		if time.Since(begin) > 10*time.Second {
			t.Fatal("no requests in flight")
		}
	}
	// t00 changes its rate (replaced), t01 is removed.
	write(t, path, strings.Replace(fleet(s.URL(), 1, 20), "rate: 20", "rate: 19", 1))
	if err := d.d.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := d.scrape(t)
	incomplete := sum(text, "llmprober_requests_total{", `target="t00"`, `outcome="incomplete"`, `error_type="canceled"`)
	if incomplete < 2 {
		t.Errorf("t00's incomplete canceled requests = %v, want its 2 or more in flight at the reload", incomplete)
	}
	if strings.Contains(text, `target="t01"`) {
		t.Error("the removed target's series remain")
	}
	st := d.d.observer.Status()
	if len(st) != 1 || len(st[0].Recent) == 0 || !strings.Contains(st[0].Recent[0].Error, "canceled: reload: the target was removed or replaced") {
		t.Errorf("t00's latest request = %+v, want one canceled by the reload", st[0].Recent)
	}
}
