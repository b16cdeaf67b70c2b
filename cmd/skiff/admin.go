package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/metrics"
)

// admin is the admin listener: Prometheus metrics and pprof, on an
// address of its own, never the app's port.
type admin struct {
	ln      net.Listener
	reg     *prometheus.Registry
	metrics *metrics.Collector
}

// newAdmin registers the process, Go runtime and request metrics on a new
// registry, for the listener ln.
func newAdmin(ln net.Listener) *admin {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &admin{ln: ln, reg: reg, metrics: metrics.New(reg)}
}

// handler serves /metrics and /debug/pprof/.
func (a *admin) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler(a.reg))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, "skiff admin: /metrics, /debug/pprof/\n")
	})
	return mux
}

// serve runs the admin server for app until ctx is done; errors other than
// the shutdown go to log (the app keeps serving without its metrics).
func (a *admin) serve(ctx context.Context, app *skiff.App, log *slog.Logger) (stop func()) {
	a.metrics.Watch(app)
	srv := &http.Server{
		Handler:           a.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(a.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin listener stopped", "err", err)
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	}
}
