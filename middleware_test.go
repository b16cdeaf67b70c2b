package skiff_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/internal/sockettest"
)

// tag returns a middleware that appends name to the X-Trail header before
// calling next, so a response shows which middleware ran, in what order.
func tag(name string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-Trail", name)
			next.ServeHTTP(w, r)
		})
	}
}

// TestMiddlewareOrder checks http.middleware.order with Go middleware:
// those before router run first, in order, for every HTTP request; those
// after it only for requests no route matched; sockets skip both.
func TestMiddlewareOrder(t *testing.T) {
	srv := newNoteApp(t, skiff.Options{
		Assets: fstest.MapFS{"app.js": {Data: []byte("1")}},
		Middleware: map[string]func(http.Handler) http.Handler{
			"paginate": tag("paginate"), "audit": tag("audit"), "fallback": tag("fallback"),
		},
		MiddlewareOrder:    []string{"cookieParser", "session", "bodyParser", "paginate", "audit", "router", "fallback", "www", "favicon"},
		MiddlewareSettings: map[string]any{"paginate": true},
	})
	for path, want := range map[string]string{"/note": "paginate,audit", "/app.js": "paginate,audit,fallback", "/nothing": "paginate,audit,fallback"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := strings.Join(resp.Header.Values("X-Trail"), ","); got != want {
			t.Errorf("GET %s: middleware ran %q, want %q", path, got, want)
		}
	}
	// Sails always runs its router: without it in the order, every
	// middleware comes before it.
	noRouter := newNoteApp(t, skiff.Options{
		Middleware:      map[string]func(http.Handler) http.Handler{"paginate": tag("paginate")},
		MiddlewareOrder: []string{"session", "bodyParser", "paginate", "www"},
	})
	resp, err := http.Get(noRouter.URL + "/note")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Trail") != "paginate" {
		t.Errorf("order without router: GET /note = %d with X-Trail %q, want 200 paginate", resp.StatusCode, resp.Header.Get("X-Trail"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sockettest.Dial(ctx, srv.URL, sockettest.Options{EIO: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	jwr, err := c.Request(ctx, "get", "/note", nil)
	if err != nil {
		t.Fatal(err)
	}
	if jwr.StatusCode != 200 || jwr.Headers["X-Trail"] != "" {
		t.Errorf("GET /note over a socket = %d with X-Trail %q, want 200 without middleware", jwr.StatusCode, jwr.Headers["X-Trail"])
	}
}

func TestMiddlewareRefused(t *testing.T) {
	mw := map[string]func(http.Handler) http.Handler{"paginate": tag("paginate")}
	tests := []struct {
		name    string
		opts    skiff.Options
		mention string
	}{
		{"unknown name in order", skiff.Options{MiddlewareOrder: []string{"session", "paginate", "router"}}, `"paginate"`},
		{"registered but not ordered", skiff.Options{Middleware: mw, MiddlewareOrder: []string{"router"}}, `"paginate"`},
		{"registered without an order", skiff.Options{Middleware: mw}, "paginate"},
		{"JavaScript definition", skiff.Options{MiddlewareSettings: map[string]any{"myThing": "require('x')"}}, "http.middleware.myThing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := skiff.New(t.Context(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("New error = %v, want one naming %s", err, tt.mention)
			}
		})
	}
}

// TestLoadSailsSections checks what app.Load makes of the custom section,
// an order without www, hooks and inMemoryOnly.
func TestLoadSailsSections(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"config/custom.yaml":    "custom: {mail: {from: a@b.c}, limit: 5}\n",
		"config/http.yaml":      "http: {middleware: {order: [cookieParser, bodyParser, router]}}\n",
		"config/views.yaml":     "views: {extension: ejs}\n",
		"config/datastore.yaml": "datastores: {default: {adapter: sails-disk, inMemoryOnly: true}}\nhooks: {sockets: false}\n",
		"assets/app.js":         "1",
		"models/Note.yaml":      "attributes: {text: {type: string}}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts, err := app.Load(t.Context(), dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Assets != nil || !opts.Session.Disabled || !opts.Sockets.Disabled {
		t.Errorf("app.Load: Assets %v, Session.Disabled %t, Sockets.Disabled %t; want nil (no www), true (no session), true (hooks.sockets)",
			opts.Assets, opts.Session.Disabled, opts.Sockets.Disabled)
	}
	if len(opts.Warnings) != 1 || !strings.HasPrefix(opts.Warnings[0], "views:") {
		t.Errorf("app.Load warnings = %q, want the one about views", opts.Warnings)
	}
	app, err := skiff.New(t.Context(), *opts)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if from, ok := skiff.CustomValue[string](app, "mail", "from"); !ok || from != "a@b.c" {
		t.Errorf("CustomValue(mail.from) = %q, %t; want a@b.c", from, ok)
	}
	if limit, ok := skiff.CustomValue[float64](app, "limit"); !ok || limit != 5 {
		t.Errorf("CustomValue(limit) = %v, %t; want 5", limit, ok)
	}
	if _, ok := skiff.CustomValue[string](app, "limit"); ok {
		t.Errorf("CustomValue[string](limit) ok, want false (it is a number)")
	}
	if _, err := os.Stat(filepath.Join(dir, ".tmp")); !os.IsNotExist(err) {
		t.Errorf("inMemoryOnly: .tmp exists in the app folder (%v)", err)
	}
}
