package skiff_test

import (
	"context"
	"fmt"
	"io"
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

// BenchmarkRequest measures one request of each kind bench/compare.sh and
// bench/floor.sh load, through the handler of the example app on SQLite
// (the floor-* kinds: bench/floor's app, seeded as bench/floor.sh seeds it),
// with the request log line at info written by the text logger of
// `skiff serve` (skiff.NewTextLogger, to io.Discard here), no cookie and a
// cancellable context, as wrk sends them and net/http serves them. Its
// allocations are exact and its instruction count repeatable
// (bench/instructions.sh runs it under callgrind), so it shows what a change
// to the request path costs on a busy machine. It uses only the public API,
// so that the same file runs against an older revision (bench/instructions.sh
// puts skiff.LoadApp for app.Load in revisions before the app package).
// REQUEST_BENCH_ENVIRON (space-separated SKIFF_* settings) changes the
// app's settings, and REQUEST_BENCH_LOG=off discards the log line, to see
// what a feature costs.
//
//	go test -run '^$' -bench Request -benchmem .
//	REQUEST_BENCH_ENVIRON=SKIFF_HTTP__ETAG=false go test -run '^$' -bench Request -benchmem .
func BenchmarkRequest(b *testing.B) {
	h := requestBenchApp(b)
	for _, rq := range []struct{ name, method, path string }{
		{"product-42", http.MethodGet, "/product/42"},
		{"product-list", http.MethodGet, "/product?limit=30"},
		{"pet-42", http.MethodGet, "/pet/42"},
		{"pet-list", http.MethodGet, "/pet?limit=30"},
		{"pet-create", http.MethodPost, "/pet"},
		{"product-create", http.MethodPost, "/product"},
		{"floor-list", http.MethodGet, "/pet?limit=30"},
		{"floor-42", http.MethodGet, "/pet/42"},
		{"floor-create", http.MethodPost, "/pet"},
	} {
		b.Run(rq.name, func(b *testing.B) {
			h := h
			if strings.HasPrefix(rq.name, "floor-") {
				h = floorBenchApp(b)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				body := ""
				switch rq.path {
				case "/pet":
					body = fmt.Sprintf(`{"name":"Bench %d","owner":%d}`, n, n%100+1)
				case "/product":
					body = fmt.Sprintf(`{"name":"Bench %d","sku":"bench-%s-%d","price":9.5,"stock":3}`, n, b.Name(), n)
				}
				requestBenchServe(b, h, rq.method, rq.path, body)
			}
		})
	}
}

// requestBenchApp serves a copy of examples/petshop on a temporary SQLite
// file with 100 products, 100 users and 1,000 pets (10 per user) and 100
// tags of 10 pets each, logging as `skiff serve` does by default.
func requestBenchApp(b *testing.B) http.Handler {
	b.Helper()
	h := requestBenchServer(b, "examples/petshop")
	for i := 1; i <= 100; i++ {
		requestBenchServe(b, h, http.MethodPost, "/product", fmt.Sprintf(`{"name":"Product %d","sku":"seed-%d","price":%d,"stock":%d}`, i, i, i, i))
		requestBenchServe(b, h, http.MethodPost, "/user", fmt.Sprintf(`{"name":"User %d","email":"user%d@example.com"}`, i, i))
	}
	for p := 1; p <= 1000; p++ {
		requestBenchServe(b, h, http.MethodPost, "/pet", fmt.Sprintf(`{"name":"Pet %d","owner":%d}`, p, (p+9)/10))
	}
	for t := 1; t <= 100; t++ {
		ids := make([]string, 0, 10)
		for p := (t-1)*10 + 1; p <= t*10; p++ {
			ids = append(ids, fmt.Sprint(p))
		}
		requestBenchServe(b, h, http.MethodPost, "/tag", fmt.Sprintf(`{"label":"tag %d","pets":[%s]}`, t, strings.Join(ids, ",")))
	}
	return h
}

// requestBenchServer serves a copy of the app folder dir on a temporary
// SQLite file, with REQUEST_BENCH_ENVIRON's settings, logging as `skiff
// serve` does by default unless REQUEST_BENCH_LOG is off.
func requestBenchServer(b *testing.B, dir string) http.Handler {
	b.Helper()
	tmp := b.TempDir()
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(filepath.Join(tmp, ".tmp"))
	ctx := context.Background()
	opts, err := app.Load(ctx, tmp, "development", strings.Fields(os.Getenv("REQUEST_BENCH_ENVIRON")))
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("REQUEST_BENCH_LOG") != "off" {
		opts.Logger = skiff.NewTextLogger(io.Discard, slog.LevelInfo)
	}
	a, err := skiff.New(ctx, *opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	return a.Handler()
}

// floorBenchApp serves bench/floor/app as bench/floor.sh seeds it: 100
// users and 100 pets, pet i owned by user i, so that a page's owners are
// distinct and joined (the floor-* kinds of BenchmarkRequest).
func floorBenchApp(b *testing.B) http.Handler {
	b.Helper()
	h := requestBenchServer(b, "bench/floor/app")
	for i := 1; i <= 100; i++ {
		requestBenchServe(b, h, http.MethodPost, "/user", fmt.Sprintf(`{"name":"User %d","email":"user%d@example.com"}`, i, i))
	}
	for i := 1; i <= 100; i++ {
		requestBenchServe(b, h, http.MethodPost, "/pet", fmt.Sprintf(`{"name":"Pet %d","owner":%d}`, i, i))
	}
	return h
}

// requestBenchServe runs one request through h with a cancellable
// context, as net/http gives every request (httptest's is never
// cancelled, which spares the database drivers their watch for
// cancellation).
func requestBenchServe(b testing.TB, h http.Handler, method, path, body string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
}
