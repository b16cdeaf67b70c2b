package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/skiffhq/skiff/internal/reqlog"
)

// Health configures the liveness and readiness endpoints, answered on the
// app's port in front of sessions, CORS and routing. An empty path turns
// an endpoint off; an app route matching GET on the path wins over it.
type Health struct {
	// Liveness answers 200 {"status":"ok"} while the process serves.
	Liveness string
	// Readiness answers 200 {"status":"ready"} when Ready returns nil, else
	// 503 {"status":"unavailable","error":…}.
	Readiness string
	// Ready checks the app's dependencies; nil means always ready.
	Ready func(ctx context.Context) error
}

// readyTimeout bounds one readiness check, so that a hung datastore
// answers 503 rather than holding the load balancer's probe.
const readyTimeout = 5 * time.Second

// health answers GET and HEAD on the health paths that no app route claims
// and hands every other request to next.
func (h *handler) health(next http.Handler) http.Handler {
	hc := h.cfg.Health
	claimed := func(p string) bool {
		if p == "" {
			return true
		}
		rt := h.router.Lookup(http.MethodGet, p)
		if rt != nil {
			h.cfg.Logger.Info("health: an app route serves GET "+p+" instead of the health endpoint", "route", strings.TrimSpace(rt.Method+" "+rt.Path))
		}
		return rt != nil
	}
	live, ready := hc.Liveness, hc.Readiness
	if claimed(live) {
		live = ""
	}
	if claimed(ready) {
		ready = ""
	}
	if live == "" && ready == "" {
		return next
	}
	// Probes come every few seconds: their lines go to debug, not info.
	answer := reqlog.New(h.cfg.Logger, slog.LevelDebug).Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == live {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
			return
		}
		if hc.Ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			err := hc.Ready(ctx)
			cancel()
			if err != nil {
				writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
				return
			}
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead || (r.URL.Path != live && r.URL.Path != ready) {
			next.ServeHTTP(w, r)
			return
		}
		answer.ServeHTTP(w, r)
	})
}
