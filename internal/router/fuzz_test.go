package router

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzMatch checks that no pattern/path pair panics, that the segment walk
// agrees with the path-to-regexp translation on every simple pattern, and
// that the router's first-segment buckets never hide a matching route.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"/user/:id", "/user/1"},
		{"/user/:id?", "/user/"},
		{"/files/*", "/files/a/b/"},
		{"/*/*", "/a//b"},
		{"/a/:b?/:c?/d", "/a/x/d"},
		{"/", "//"},
		{"//", "/"},
		{"/file/:name.:ext?", "/file/a.b"},
		{`r|^/foo/(\d+)$|id`, "/foo/1"},
		{"/v:version/x", "/v1/x"},
		{"/a/:id(\\d+)?", "/a"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, path string) {
		p, err := compile(pat)
		if err != nil {
			return
		}
		req := httptest.NewRequest("GET", "/", nil).WithContext(context.Background())
		req.URL = &url.URL{Path: path}
		escaped := req.URL.EscapedPath()
		if escaped == "" {
			escaped = "/"
		}
		var buf [maxSegs]string
		caps, matched := p.match(escaped, splitPath(buf[:0], escaped), nil)

		r := New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(404) }))
		if err := r.Add(Route{Method: "GET", Path: pat, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(200)
		})}); err != nil {
			t.Fatalf("compile(%q) succeeded but Add failed: %v", pat, err)
		}
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if got := rec.Code == 200; got != matched {
			t.Fatalf("pattern %q path %q: router matched %v, pattern.match %v", pat, escaped, got, matched)
		}

		if p.re != nil {
			return
		}
		expr, names, err := translate(pat)
		if err != nil {
			t.Fatalf("simple pattern %q does not translate: %v", pat, err)
		}
		rp := &pattern{}
		if rp.re, err = compileRegexp(expr); err != nil {
			t.Fatalf("simple pattern %q: translation %q does not compile: %v", pat, expr, err)
		}
		rp.groups = groupNames(rp.re, names)
		rcaps, rmatched := rp.matchRegexp(escaped, nil)
		if rmatched != matched {
			t.Fatalf("pattern %q (regexp %s) path %q: segments matched %v, regexp %v", pat, expr, escaped, matched, rmatched)
		}
		if diff := cmp.Diff(capMap(rcaps), capMap(caps)); matched && diff != "" {
			t.Fatalf("pattern %q path %q: captures (-regexp +segments):\n%s", pat, escaped, diff)
		}
	})
}

func capMap(caps []capture) map[string]string {
	m := map[string]string{}
	for _, c := range caps {
		m[c.name] = c.value
	}
	return m
}
