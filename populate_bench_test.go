package skiff_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
)

// BenchmarkPopulatedList measures the list endpoints of the example app
// through the handler, without a network: the association-free product list
// is the reference, and the populated lists (one-to-many and many-to-many,
// 10 children per parent, 30 parents) report their cost as a ratio to it.
//
//	go test -run '^$' -bench PopulatedList -benchtime 2s .
func BenchmarkPopulatedList(b *testing.B) {
	h := petshopWithData(b)
	ref := measureList(b, h, "/product?limit=30")
	for _, path := range []string{"/user?limit=30", "/tag?limit=30"} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				serveOK(b, h, http.MethodGet, path, "")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/ref, "x-product-list")
		})
	}
}

// measureList returns the nanoseconds one request to path takes, averaged
// over a fixed number of requests. It times the loop itself because
// testing.Benchmark cannot run inside a running benchmark.
func measureList(b *testing.B, h http.Handler, path string) float64 {
	const n = 2000
	start := time.Now()
	for range n {
		serveOK(b, h, http.MethodGet, path, "")
	}
	return float64(time.Since(start).Nanoseconds()) / n
}

func serveOK(b testing.TB, h http.Handler, method, path, body string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
}

// petshopWithData serves a copy of examples/petshop on a temporary SQLite
// file with 100 products, 100 users with 10 pets each and 100 tags with 10
// pets each.
func petshopWithData(b *testing.B) http.Handler {
	b.Helper()
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS("examples/petshop")); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".tmp"))
	ctx := context.Background()
	opts, err := skiff.LoadApp(ctx, dir, "development", nil)
	if err != nil {
		b.Fatal(err)
	}
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { app.Close() })
	h := app.Handler()
	for i := 1; i <= 100; i++ {
		serveOK(b, h, http.MethodPost, "/product", fmt.Sprintf(`{"name":"Product %d","sku":"sku-%d","price":%d}`, i, i, i))
		serveOK(b, h, http.MethodPost, "/user", fmt.Sprintf(`{"name":"User %d","email":"user%d@example.com"}`, i, i))
	}
	for p := 1; p <= 1000; p++ {
		serveOK(b, h, http.MethodPost, "/pet", fmt.Sprintf(`{"name":"Pet %d","owner":%d}`, p, (p+9)/10))
	}
	for t := 1; t <= 100; t++ {
		var ids []string
		for p := (t-1)*10 + 1; p <= t*10; p++ {
			ids = append(ids, fmt.Sprint(p))
		}
		serveOK(b, h, http.MethodPost, "/tag", fmt.Sprintf(`{"label":"tag %d","pets":[%s]}`, t, strings.Join(ids, ",")))
	}
	return h
}
