package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
)

// BenchmarkFloor measures the floor's handler in process (with Skiff's
// headers, and -bare without them: bare-*), as BenchmarkRequest
// (request_bench_test.go) measures Skiff's floor-* kinds:
// the same requests through httptest, no cookie, a cancellable context, on a SQLite file of
// bench/floor/app that Skiff made and seeded as bench/floor.sh does. Side
// by side the two give Skiff's own share of a request without the network
// and the kernel, which move with the machine:
//
//	go test -run '^$' -bench . -benchmem ./bench/floor
//	go test -run '^$' -bench 'Request/floor-' -benchmem .
func BenchmarkFloor(b *testing.B) {
	st, err := openSQLite(context.Background(), seededSQLite(b))
	if err != nil {
		b.Fatal(err)
	}
	floor := (&server{st: st, hd: newHeaders("skiff-development-session-secret")}).handler()
	bare := (&server{st: st}).handler()
	for _, rq := range []struct{ name, method, path string }{
		{"list", http.MethodGet, "/pet?limit=30"},
		{"42", http.MethodGet, "/pet/42"},
		{"create", http.MethodPost, "/pet"},
		{"bare-list", http.MethodGet, "/pet?limit=30"},
		{"bare-42", http.MethodGet, "/pet/42"},
		{"bare-create", http.MethodPost, "/pet"},
	} {
		h := floor
		if strings.HasPrefix(rq.name, "bare-") {
			h = bare
		}
		b.Run(rq.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				body := ""
				if rq.method == http.MethodPost {
					body = fmt.Sprintf(`{"name":"Bench %d","owner":%d}`, n, n%100+1)
				}
				serve(b, h, rq.method, rq.path, body)
			}
		})
	}
}

// seededSQLite serves a copy of the app with Skiff on a temporary SQLite
// file, creates 100 users and 100 pets (pet i owned by user i) through it,
// and returns the file's path once Skiff has closed it.
func seededSQLite(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS("app")); err != nil {
		b.Fatal(err)
	}
	opts, err := app.Load(ctx, dir, "development", nil)
	if err != nil {
		b.Fatal(err)
	}
	opts.Logger = slog.New(slog.DiscardHandler)
	a, err := skiff.New(ctx, *opts)
	if err != nil {
		b.Fatal(err)
	}
	h := a.Handler()
	for i := 1; i <= 100; i++ {
		serve(b, h, http.MethodPost, "/user", fmt.Sprintf(`{"name":"User %d","email":"user%d@example.com"}`, i, i))
	}
	for i := 1; i <= 100; i++ {
		serve(b, h, http.MethodPost, "/pet", fmt.Sprintf(`{"name":"Pet %d","owner":%d}`, i, i))
	}
	if err := a.Close(); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(dir, ".tmp", "default.db")
}

// serve runs one request through h with a cancellable context, as
// net/http gives every request (httptest's is never cancelled, which
// spares the database drivers their watch for cancellation), and fails on
// an answer that is not 2xx.
func serve(b *testing.B, h http.Handler, method, path, body string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code/100 != 2 {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
}
