package skiff

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestDispatchAsServeMux checks that dispatch answers as the ServeMux it
// replaces: same handler, status, Location and Pattern for every path.
func TestDispatchAsServeMux(t *testing.T) {
	named := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s %s %q", name, r.URL.Path, r.Pattern)
		})
	}
	sockets, app := named("sockets"), named("app")
	mux := http.NewServeMux()
	mux.Handle("/socket.io/", sockets)
	mux.Handle("/", app)
	d := newDispatch(sockets, app)
	paths := []string{
		"/", "/pet", "/pet/", "/pet/42", "/pet//42", "//pet", "/pet/./42", "/pet/../42", "/pet/.", "/pet/..",
		"/.", "/..", "/a/b/c/", "/a/.b/c", "/a/..b", "/a/b..", "/socket.io", "/socket.io/", "/socket.io/?EIO=4",
		"/socket.iox", "/socket.io/../pet", "/a%2F..", "/a%2e%2e/b", "/%2e/", "/js/app.js", "/pet?x=1", "/pet/42/",
		"/a///", "/a/b/..", "/a/b/./", "*",
	}
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodConnect, http.MethodOptions} {
		for _, p := range paths {
			serve := func(h http.Handler) *httptest.ResponseRecorder {
				r := httptest.NewRequest(method, "http://example.com/", nil)
				r.RequestURI = p
				if p != "*" {
					r = httptest.NewRequest(method, "http://example.com"+p, nil)
				} else {
					r.URL.Path = "*"
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			want, got := serve(mux), serve(d)
			if got.Code != want.Code || got.Body.String() != want.Body.String() || got.Header().Get("Location") != want.Header().Get("Location") {
				t.Errorf("%s %s: dispatch %d %q %q, mux %d %q %q", method, p,
					got.Code, got.Header().Get("Location"), got.Body, want.Code, want.Header().Get("Location"), want.Body)
			}
		}
	}
}

func TestCleanPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/": true, "/a": true, "/a/": true, "/a/b": true, "/a.b/..c": true,
		"": false, "a": false, "//": false, "/a//b": false, "/./": false, "/a/.": false, "/a/..": false, "/a/../b": false,
	} {
		if got := cleanPath(p); got != want {
			t.Errorf("cleanPath(%q) = %v, want %v", p, got, want)
		}
	}
}
