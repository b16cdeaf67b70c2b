package router_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/skiffhq/skiff/internal/router"
)

// blueprintTable builds the shadow routes of n models, 15 per model, in
// Sails' binding order (shortcuts, REST, association routes).
func blueprintTable(b *testing.B, n int) *router.Router {
	b.Helper()
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := router.New(h)
	for i := range n {
		m := fmt.Sprintf("/model%d", i)
		for _, a := range []string{
			"GET " + m + "/find", "GET " + m + "/find/:id", "GET " + m + "/create",
			"GET " + m + "/update/:id", "GET " + m + "/destroy/:id",
			"GET " + m, "GET " + m + "/:id", "POST " + m, "PATCH " + m + "/:id",
			"DELETE " + m + "/:id?", "PUT " + m + "/:id",
			"PUT " + m + "/:parentid/pets/:childid", "PUT " + m + "/:parentid/pets",
			"DELETE " + m + "/:parentid/pets/:childid", "GET " + m + "/:parentid/pets",
		} {
			method, path, err := router.ParseAddress(a)
			if err != nil {
				b.Fatal(err)
			}
			rt := router.Route{Method: method, Path: path, Handler: h, SkipAssets: router.DefaultSkipAssets(method, path)}
			if err := r.Add(rt); err != nil {
				b.Fatal(err)
			}
		}
	}
	return r
}

// BenchmarkMatch routes requests through 50 models × 15 routes (750).
func BenchmarkMatch(b *testing.B) {
	r := blueprintTable(b, 50)
	for _, c := range []struct{ name, method, target string }{
		{"find", "GET", "/model37"},
		{"findOne", "GET", "/model37/123"},
		{"populate", "GET", "/model49/1/pets"},
		{"remove", "DELETE", "/model49/1/pets/2"},
		{"notFound", "GET", "/nothing/here"},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(c.method, c.target, nil)
			var w nopWriter
			b.ReportAllocs()
			for b.Loop() {
				r.ServeHTTP(w, req)
			}
		})
	}
}

type nopWriter struct{}

func (nopWriter) Header() http.Header         { return nil }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}
