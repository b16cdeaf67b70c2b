// Package skifftest starts Skiff apps for tests, as net/http/httptest starts
// handlers: embedders test their apps with it, and Skiff's own end-to-end
// tests use it too.
package skifftest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
)

// Load reads the app folder dir as app.Load does, for environment env
// (development when empty) with environ as the process environment
// ("KEY=value" entries, e.g. SKIFF_DATASTORES__DEFAULT__URL). It fails tb
// when the folder does not load.
func Load(tb testing.TB, dir, env string, environ ...string) *skiff.Options {
	tb.Helper()
	if env == "" {
		env = "development"
	}
	opts, err := app.Load(context.Background(), dir, env, environ)
	if err != nil {
		tb.Fatalf("skifftest: load %s: %v", dir, err)
	}
	return opts
}

// New builds the app of opts and closes it when the test ends. It fails tb
// when the app does not start.
func New(tb testing.TB, opts skiff.Options) *skiff.App {
	tb.Helper()
	app, err := skiff.New(context.Background(), opts)
	if err != nil {
		tb.Fatalf("skifftest: start the app: %v", err)
	}
	tb.Cleanup(func() {
		if err := app.Close(); err != nil {
			tb.Errorf("skifftest: close the app: %v", err)
		}
	})
	return app
}

// Serve builds the app of opts and serves its handler, sockets included, on
// a loopback httptest.Server. When the test ends the app is closed first,
// so its sockets are gone before the server waits for its connections.
func Serve(tb testing.TB, opts skiff.Options) (*skiff.App, *httptest.Server) {
	tb.Helper()
	srv := httptest.NewUnstartedServer(nil)
	// Registered before New's cleanup, so it runs after it.
	tb.Cleanup(srv.Close)
	app := New(tb, opts)
	srv.Config.Handler = app.Handler()
	app.Realtime().Start() // what App.Serve does: run the bus, if any
	srv.Start()
	return app, srv
}
