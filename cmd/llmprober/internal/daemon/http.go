package daemon

import (
	"errors"
	"net/http"

	"github.com/llmprober/llmprober/config"
)

// registerRoutes adds POST /-/reload (403 unless Options.EnableLifecycle;
// any other method answers 405 with Allow: POST) and GET /config to the
// server.
func (d *Daemon) registerRoutes() {
	reload := http.HandlerFunc(d.serveReload)
	if !d.opts.EnableLifecycle {
		reload = lifecycleDisabled
	}
	d.server.Handle("POST /-/reload", reload)
	d.server.Handle("/-/reload", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed; use POST", http.StatusMethodNotAllowed)
	}))
	d.server.Handle("GET /config", http.HandlerFunc(d.serveConfig))
}

// lifecycleDisabled answers POST /-/reload without --web.enable-lifecycle,
// in Prometheus's words.
func lifecycleDisabled(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "Lifecycle API is not enabled.", http.StatusForbidden)
}

// serveReload reloads the configuration: 200 when it was reloaded or did
// not change, 409 when a reload that read the file later finished first,
// 400 with the error's text when the new one is refused (a file that
// cannot be read, such as a named pipe, at once).
func (d *Daemon) serveReload(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := d.Reload(r.Context()); err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, errSuperseded) {
			code = http.StatusConflict
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(err.Error() + "\n"))
		return
	}
	_, _ = w.Write([]byte("configuration reloaded\n"))
}

// serveConfig shows the running configuration as YAML, secrets redacted.
func (d *Daemon) serveConfig(w http.ResponseWriter, _ *http.Request) {
	b, err := config.Running(d.running.Load())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/yaml; charset=utf-8")
	_, _ = w.Write(b)
}
