package daemon

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe/sim"
)

// heapBound is the most heap a reload or a poll of a refused file may
// keep, or allocate when it reads nothing, in bytes: far below the 4 MiB a
// read of the file at its limit takes.
const heapBound = 1 << 20

// measure runs f and returns the heap it left allocated after a garbage
// collection (retained) and the bytes it allocated in all.
func measure(f func()) (retained int64, allocated uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), after.TotalAlloc - before.TotalAlloc
}

// within fails the test when f has not returned within 10 s: a hang, not
// a timing.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10 s", what)
	}
}

// post sends POST /-/reload, without a body, and returns the status and
// body.
func (s *started) post(t *testing.T) (int, string) {
	t.Helper()
	resp, err := http.Post(s.base+"/-/reload", "", nil)
	if err != nil {
		t.Fatalf("POST /-/reload: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// get fetches path and returns its status.
func (s *started) get(t *testing.T, path string) int {
	t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// reloads returns the failed and successful reloads counted, and
// llmprober_config_last_reload_successful.
func (s *started) reloads(t *testing.T) (failed, succeeded, last float64) {
	text := s.scrape(t)
	return sum(text, "llmprober_config_reloads_total", `outcome="failure"`),
		sum(text, "llmprober_config_reloads_total", `outcome="success"`),
		sum(text, "llmprober_config_last_reload_successful")
}

// sparse replaces path by a sparse file of size bytes.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	_ = os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
}

// startSim starts the simulated endpoint for the test.
func startSim(t *testing.T) *sim.Server {
	t.Helper()
	s, err := sim.Start(sim.Config{OutputTokens: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// POST /-/reload of a configuration path that holds a named pipe, a
// symbolic link to /dev/zero, a directory, a 100 MB file or 4 MiB without
// a newline answers 400 at once with the file and what is wrong (or the
// limit), counts one failed reload each, keeps less than 1 MiB of heap,
// and allocates less than 1 MiB when the file is refused without reading
// it; the valid file afterwards reloads.
func TestReloadUnreadableFile(t *testing.T) {
	s := startSim(t)
	path := filepath.Join(t.TempDir(), "c.yml")
	good := fleet(s.URL(), 1, 2)
	write(t, path, good)
	d := start(t, path)
	replace := func(create func() error) func() {
		return func() {
			_ = os.RemoveAll(path)
			if err := create(); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name   string
		setup  func()
		want   string
		noRead bool // refused before reading: allocates less than heapBound
	}{
		{"a named pipe without a writer", replace(func() error { return syscall.Mkfifo(path, 0o600) }),
			"could not read " + path + ": configuration file is not a regular file (it is a named pipe)", true},
		{"a symbolic link to /dev/zero", replace(func() error { return os.Symlink("/dev/zero", path) }),
			"could not read " + path + ": configuration file is not a regular file (it is a device)", true},
		{"a directory", replace(func() error { return os.Mkdir(path, 0o700) }),
			"could not read " + path + ": configuration file is not a regular file (it is a directory)", true},
		{"a 100 MB file", func() { sparse(t, path, 100<<20) },
			"could not read " + path + ": configuration file is too large: larger than 4 MiB, the limit for configuration files", true},
		{"4 MiB without a newline", func() { write(t, path, strings.Repeat("a", 4<<20)) }, path + ":1:", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup()
			var code int
			var body string
			retained, allocated := measure(func() {
				within(t, "POST /-/reload", func() { code, body = d.post(t) })
			})
			if code != http.StatusBadRequest || !strings.Contains(body, tt.want) {
				t.Errorf("POST /-/reload = %d %q; want 400 with %q", code, body, tt.want)
			}
			t.Logf("%s: %d retained, %d allocated; %d %q", tt.name, retained, allocated, code, body[:min(len(body), 160)])
			if retained > heapBound || (tt.noRead && allocated > heapBound) {
				t.Errorf("%d bytes retained, %d allocated; want at most %d", retained, allocated, heapBound)
			}
			if failed, _, last := d.reloads(t); failed != float64(i+1) || last != 0 {
				t.Errorf("%v failed reloads, last successful %v; want %d and 0", failed, last, i+1)
			}
		})
	}
	_ = os.RemoveAll(path)
	write(t, path, strings.Replace(good, "rate: 2", "rate: 3", 1))
	if code, body := d.post(t); code != http.StatusOK {
		t.Fatalf("the valid file: %d %s", code, body)
	}
	if _, ok, last := d.reloads(t); ok != 1 || last != 1 {
		t.Errorf("%v successful reloads, last successful %v; want 1 and 1", ok, last)
	}
}

// slowMark, in a configuration file, holds the reload that parses it until
// the test releases it: a reload whose reads are slow.
const slowMark = "# slow\n"

// A reload whose reading is slow holds no lock: meanwhile /-/healthy and
// /metrics answer, and another POST /-/reload reads, applies and answers;
// the slow one then returns errSuperseded without touching what runs. A
// stop while a slow reload reads returns, and the reload then changes
// nothing.
func TestReloadReadsWithoutTheLock(t *testing.T) {
	s := startSim(t)
	path := filepath.Join(t.TempDir(), "c.yml")
	write(t, path, fleet(s.URL(), 1, 2))
	entered, release := make(chan struct{}, 2), make(chan struct{})
	d := startWith(t, path, func(o *Options) {
		o.Reload = func(data []byte) (*config.Config, error) {
			if strings.Contains(string(data), slowMark) {
				entered <- struct{}{}
				<-release
			}
			return loadData(path, data)
		}
	})
	write(t, path, slowMark+fleet(s.URL(), 1, 3))
	slow := make(chan error, 1)
	go func() { slow <- d.d.Reload(context.Background()) }()
	<-entered
	for _, p := range []string{"/-/healthy", "/metrics"} {
		if code := d.get(t, p); code != http.StatusOK {
			t.Errorf("GET %s during a slow reload: %d", p, code)
		}
	}
	write(t, path, fleet(s.URL(), 1, 4))
	var code int
	within(t, "a second POST /-/reload", func() { code, _ = d.post(t) })
	if rate := d.d.running.Load().Targets[0].Schedule.Rate; code != http.StatusOK || rate != 4 {
		t.Errorf("the second reload: %d, rate %v; want 200 and 4", code, rate)
	}
	release <- struct{}{}
	if err := <-slow; !errors.Is(err, errSuperseded) {
		t.Errorf("the slow reload returned %v; want errSuperseded", err)
	}
	if failed, ok, last := d.reloads(t); failed != 0 || ok != 1 || last != 1 || d.d.running.Load().Targets[0].Schedule.Rate != 4 {
		t.Errorf("failed %v, successful %v, last %v, rate %v; want 0, 1, 1 and 4", failed, ok, last, d.d.running.Load().Targets[0].Schedule.Rate)
	}
	write(t, path, slowMark+fleet(s.URL(), 1, 5))
	go func() { slow <- d.d.Reload(context.Background()) }()
	<-entered
	within(t, "stopping during a slow reload", func() {
		if err := d.stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	close(release)
	if err := <-slow; !errors.Is(err, errStopped) || d.d.running.Load().Targets[0].Schedule.Rate != 4 {
		t.Errorf("the slow reload after the stop returned %v, rate %v; want errStopped and 4", err, d.d.running.Load().Targets[0].Schedule.Rate)
	}
}

// Polling: a bad edit fails once; the file returned to the running
// configuration's content is then a successful reload (last successful 1,
// its timestamp updated, logged at INFO) that restarts no unit.
func TestPollRevertedEdit(t *testing.T) {
	s := startSim(t)
	path := filepath.Join(t.TempDir(), "c.yml")
	good := fleet(s.URL(), 2, 2)
	write(t, path, good)
	d := start(t, path)
	ctx := context.Background()
	var st pollState
	d.d.poll(ctx, &st)
	d.d.mu.Lock()
	units := map[string]*unit{}
	for name, u := range d.d.units {
		units[name] = u
	}
	d.d.mu.Unlock()
	steps := []struct {
		name                 string
		file                 string // "" leaves the file as it is
		failed, ok, lastGood float64
	}{
		{"the running file: nothing", "", 0, 0, 1},
		{"a bad edit fails", good + "bogus: 1\n", 1, 0, 0},
		{"unchanged: not again", "", 1, 0, 0},
		{"the same bad content rewritten: not again", good + "bogus: 1\n", 1, 0, 0},
		{"reverted: loaded", good, 1, 1, 1},
		{"then unchanged: nothing", "", 1, 1, 1},
	}
	for _, step := range steps {
		if step.file != "" {
			write(t, path, step.file)
		}
		before := float64(time.Now().UnixNano()) / 1e9
		d.d.poll(ctx, &st)
		failed, ok, last := d.reloads(t)
		if failed != step.failed || ok != step.ok || last != step.lastGood {
			t.Fatalf("%s: failed %v, successful %v, last successful %v; want %v, %v, %v\n%s",
				step.name, failed, ok, last, step.failed, step.ok, step.lastGood, d.logs.String())
		}
		if step.name == "reverted: loaded" {
			if ts := sum(d.scrape(t), "llmprober_config_last_reload_success_timestamp_seconds"); ts < before {
				t.Errorf("last success timestamp %v; want at least %v", ts, before)
			}
		}
	}
	if !strings.Contains(d.logs.String(), `level=INFO msg="configuration reloaded" file=`+path+` targets=2 added=0 changed=0 removed=0 unchanged=2`) {
		t.Errorf("the revert is not logged at INFO as a reload of 2 unchanged targets:\n%s", d.logs.String())
	}
	d.d.mu.Lock()
	defer d.d.mu.Unlock()
	for name, u := range d.d.units {
		if units[name] != u {
			t.Errorf("unit %s was replaced by the revert", name)
		}
	}
}

// Polling a path that holds no file (deleted, or a directory) warns once
// and counts no reload; a file back at the path is loaded.
func TestPollAbsentFile(t *testing.T) {
	s := startSim(t)
	path := filepath.Join(t.TempDir(), "c.yml")
	write(t, path, fleet(s.URL(), 1, 2))
	d := start(t, path)
	ctx := context.Background()
	var st pollState
	for _, step := range []func() error{
		func() error { return os.Remove(path) },
		func() error { return nil },
		func() error { return os.Mkdir(path, 0o700) },
		func() error { return nil },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		d.d.poll(ctx, &st)
	}
	logs := d.logs.String()
	if n := strings.Count(logs, `level=WARN msg="no configuration file to poll; the running configuration stays until one is back" file=`+path); n != 1 {
		t.Errorf("%d warnings; want 1:\n%s", n, logs)
	}
	if failed, ok, last := d.reloads(t); failed != 0 || ok != 0 || last != 1 || strings.Contains(logs, "level=ERROR") {
		t.Errorf("failed %v, successful %v, last %v; want 0, 0, 1 and no error logged:\n%s", failed, ok, last, logs)
	}
	_ = os.Remove(path)
	write(t, path, fleet(s.URL(), 1, 3))
	d.d.poll(ctx, &st)
	if _, ok, _ := d.reloads(t); ok != 1 || d.d.running.Load().Targets[0].Schedule.Rate != 3 {
		t.Errorf("the file back: %v successful reloads, rate %v; want 1 and 3", ok, d.d.running.Load().Targets[0].Schedule.Rate)
	}
	if !strings.Contains(d.logs.String(), `level=INFO msg="the configuration file is back"`) {
		t.Errorf("the file's return is not logged:\n%s", d.logs.String())
	}
}

// A poll reads the file only when its status changed: 50 polls of an
// unchanged 3 MiB file allocate less than 1 MiB (one read takes 3 MiB),
// and 50 polls of a 100 MB file count one failed reload and keep and
// allocate less than 1 MiB.
func TestPollReadsOnlyChanges(t *testing.T) {
	s := startSim(t)
	path := filepath.Join(t.TempDir(), "c.yml")
	padded := fleet(s.URL(), 1, 2) + strings.Repeat("# "+strings.Repeat("x", 97)+"\n", 3<<20/100)
	write(t, path, padded)
	d := start(t, path)
	ctx := context.Background()
	var st pollState
	d.d.poll(ctx, &st)
	for _, tc := range []struct {
		name   string
		setup  func()
		failed float64
	}{
		{"an unchanged 3 MiB file", func() {}, 0},
		{"a 100 MB file", func() { sparse(t, path, 100<<20) }, 1},
	} {
		tc.setup()
		retained, allocated := measure(func() {
			for range 50 {
				d.d.poll(ctx, &st)
			}
		})
		t.Logf("%s: %d retained, %d allocated", tc.name, retained, allocated)
		if retained > heapBound || allocated > heapBound {
			t.Errorf("%s: 50 polls retained %d bytes and allocated %d; want at most %d each", tc.name, retained, allocated, heapBound)
		}
		if failed, _, _ := d.reloads(t); failed != tc.failed {
			t.Errorf("%s: %v failed reloads; want %v", tc.name, failed, tc.failed)
		}
	}
}
