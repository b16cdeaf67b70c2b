package skiff_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/internal/testenv"
)

// BenchmarkPopulatedList measures the list endpoints of the example app
// through the handler, without a network: the association-free product list
// is the reference, and the populated lists (one-to-many and many-to-many,
// 10 children per parent, 30 parents) report their cost as a ratio to it.
// BenchmarkPopulatedListPostgres does the same on PostgreSQL.
//
//	go test -run '^$' -bench PopulatedList -benchtime 2s .
func BenchmarkPopulatedList(b *testing.B) {
	populatedLists(b, petshopWithData(b, nil))
}

// BenchmarkPopulatedListPostgres is BenchmarkPopulatedList on PostgreSQL
// (skipped when it is not reachable; see internal/testenv).
func BenchmarkPopulatedListPostgres(b *testing.B) {
	populatedLists(b, petshopWithData(b, postgresEnviron(b)))
}

func populatedLists(b *testing.B, h http.Handler) {
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

// BenchmarkCreate measures POST /product (issue 2's create figure) through
// the handler, on SQLite and, when reachable, PostgreSQL.
//
//	go test -run '^$' -bench Create -benchtime 2s .
func BenchmarkCreate(b *testing.B) {
	onEachStore(b, func(b *testing.B, environ []string) {
		h := petshop(b, environ)
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n++
			serveOK(b, h, http.MethodPost, "/product", fmt.Sprintf(`{"name":"Product %d","sku":"sku-%d","price":%d,"stock":%d}`, n, n, n, n))
		}
	})
}

// BenchmarkReplace measures PUT /:model/:id/:association with 10 ids
// (issue 3's replace figure) through the handler, alternating between two
// sets so that every request really replaces all ten members: many-to-many
// (tag/1/pets) and one-to-many (user/1/pets), on SQLite and, when reachable,
// PostgreSQL.
//
//	go test -run '^$' -bench Replace -benchtime 2s .
func BenchmarkReplace(b *testing.B) {
	onEachStore(b, func(b *testing.B, environ []string) {
		h := petshopWithData(b, environ)
		sets := [2]string{"[1,2,3,4,5,6,7,8,9,10]", "[11,12,13,14,15,16,17,18,19,20]"}
		for _, path := range []string{"/tag/1/pets", "/user/1/pets"} {
			b.Run(strings.Split(path, "/")[1], func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					n++
					serveOK(b, h, http.MethodPut, path, sets[n%2])
				}
			})
		}
	})
}

// BenchmarkFindOne measures GET /:model/:id with its collections populated
// (the answer PUT /:model/:id/:association sends too), through the handler:
// many-to-many (tag/1) and one-to-many (user/1), 10 children each, on
// SQLite and, when reachable, PostgreSQL.
//
//	go test -run '^$' -bench FindOne -benchtime 2s .
func BenchmarkFindOne(b *testing.B) {
	onEachStore(b, func(b *testing.B, environ []string) {
		h := petshopWithData(b, environ)
		for _, path := range []string{"/tag/1", "/user/1"} {
			b.Run(strings.Split(path, "/")[1], func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					serveOK(b, h, http.MethodGet, path, "")
				}
			})
		}
	})
}

// onEachStore runs fn as a sub-benchmark on SQLite, then on PostgreSQL and
// MySQL (each skipped when it is not reachable), with the SKIFF_* overrides that
// select the store.
func onEachStore(b *testing.B, fn func(b *testing.B, environ []string)) {
	b.Run("sqlite", func(b *testing.B) { fn(b, nil) })
	b.Run("postgres", func(b *testing.B) { fn(b, postgresEnviron(b)) })
	b.Run("mysql", func(b *testing.B) {
		fn(b, []string{"SKIFF_DATASTORES__DEFAULT__ADAPTER=mysql", "SKIFF_DATASTORES__DEFAULT__URL=" + testenv.MySQLDatabase(b)})
	})
}

// postgresEnviron points the example app's default datastore at a fresh
// PostgreSQL schema.
func postgresEnviron(b *testing.B) []string {
	return []string{
		"SKIFF_DATASTORES__DEFAULT__ADAPTER=postgres",
		"SKIFF_DATASTORES__DEFAULT__URL=" + testenv.Postgres(b),
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

// petshop serves a copy of examples/petshop, on a temporary SQLite file
// unless environ (SKIFF_* overrides) points it elsewhere.
func petshop(b *testing.B, environ []string) http.Handler {
	b.Helper()
	return petshopTuned(b, environ, nil)
}

// petshopTuned is petshop with its options edited by tune (when not nil)
// before the app starts.
func petshopTuned(b *testing.B, environ []string, tune func(*skiff.Options)) http.Handler {
	b.Helper()
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS("examples/petshop")); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".tmp"))
	ctx := context.Background()
	opts, err := app.Load(ctx, dir, "development", environ)
	if err != nil {
		b.Fatal(err)
	}
	if tune != nil {
		tune(opts)
	}
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { app.Close() })
	return app.Handler()
}

// petshopWithData is petshop with 100 products, 100 users with 10 pets
// each and 100 tags with 10 pets each.
func petshopWithData(b *testing.B, environ []string) http.Handler {
	b.Helper()
	return seedPetshop(b, petshop(b, environ))
}

// seedPetshop adds petshopWithData's records to the petshop app h.
func seedPetshop(b *testing.B, h http.Handler) http.Handler {
	b.Helper()
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

// BenchmarkPopulatedListMySQL is BenchmarkPopulatedList on MySQL or
// MariaDB (skipped when it is not reachable; see internal/testenv).
func BenchmarkPopulatedListMySQL(b *testing.B) {
	populatedLists(b, petshopWithData(b, []string{"SKIFF_DATASTORES__DEFAULT__ADAPTER=mysql", "SKIFF_DATASTORES__DEFAULT__URL=" + testenv.MySQLDatabase(b)}))
}

// BenchmarkReplaceEarlyLockRelease measures concurrent replaces of one
// record's collection on PostgreSQL with the datastore's earlyLockRelease
// off (the default) and on: every request waits for the record's lock, and
// with early release the next one need not wait for the disk write too.
//
//	go test -run '^$' -bench ReplaceEarlyLockRelease -benchtime 3s .
func BenchmarkReplaceEarlyLockRelease(b *testing.B) {
	for _, early := range []string{"false", "true"} {
		b.Run("earlyLockRelease="+early, func(b *testing.B) {
			h := petshopWithData(b, append(postgresEnviron(b), "SKIFF_DATASTORES__DEFAULT__EARLYLOCKRELEASE="+early))
			sets := [2]string{"[1,2,3,4,5,6,7,8,9,10]", "[11,12,13,14,15,16,17,18,19,20]"}
			b.SetParallelism(2)
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					serveOK(b, h, http.MethodPut, "/user/1/pets", sets[n.Add(1)%2])
				}
			})
		})
	}
}
