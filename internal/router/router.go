// Package router is Skiff's ordered route table with Sails (Express 4)
// matching rules: routes are tried in the order they were added and the
// first match wins; paths match case-insensitively and tolerate one trailing
// slash; ":name" and ":name?" capture one path segment; "*" captures the
// rest; "r|regex|names" addresses use a regular expression.
//
// The router extends net/http rather than replacing it: matched path
// parameters are set with (*http.Request).SetPathValue and read back with
// PathValue, and the matched Route travels in the request context.
package router

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/skiffhq/skiff/internal/reqlog"
)

// Route is one entry of the table.
type Route struct {
	// Method is an upper-case HTTP verb, or "" for every verb. A GET route
	// also answers HEAD requests.
	Method string
	// Path is a Sails address path: "/user/:id", "/user/:id?", "/files/*",
	// or the regex form "r|^/foo/(\\d+)$|id,name".
	Path    string
	Handler http.Handler
	// SkipAssets makes the route ignore requests whose last path segment
	// looks like a file name ("a.b"), as Sails' skipAssets option does.
	// DefaultSkipAssets gives Sails' default for a route.
	SkipAssets bool
	// Options is opaque per-route data, read back with Lookup.
	Options any
}

// Router is an ordered route table. Build it with New and Add before
// serving: Add is not safe for concurrent use, ServeHTTP is (once the table
// is complete).
type Router struct {
	notFound http.Handler
	routes   []entry
	// buckets holds, for each lower-cased first literal path segment, the
	// indexes of the routes a request starting with that segment can match,
	// in table order. dynamic holds the routes whose first segment is not a
	// literal; they belong to every bucket too.
	buckets map[string][]int
	dynamic []int
}

type entry struct {
	route  Route
	method string
	pat    *pattern
	// pattern is "METHOD /path" ("ALL /path" for every verb), the route's
	// label in request metrics.
	pattern string
}

// New returns an empty Router that hands requests matching no route to
// notFound (http.NotFoundHandler() when nil).
func New(notFound http.Handler) *Router {
	if notFound == nil {
		notFound = http.NotFoundHandler()
	}
	return &Router{notFound: notFound, buckets: map[string][]int{}}
}

// Add appends rt to the table; it is tried after every route added before
// it. Its pattern is compiled here, once. Add returns an error naming the
// route when the path is malformed, the method is not a token, or the
// handler is nil.
func (r *Router) Add(rt Route) error {
	if rt.Handler == nil {
		return fmt.Errorf("route %s %q: nil handler", rt.Method, rt.Path)
	}
	method := strings.ToUpper(rt.Method)
	if !isToken(method) {
		return fmt.Errorf("route %q: bad method %q", rt.Path, rt.Method)
	}
	pat, err := compile(rt.Path)
	if err != nil {
		return fmt.Errorf("route %s %q: %w", method, rt.Path, err)
	}
	rt.Method = method
	i := len(r.routes)
	label := method
	if label == "" {
		label = "ALL"
	}
	r.routes = append(r.routes, entry{route: rt, method: method, pat: pat, pattern: label + " " + rt.Path})
	if !pat.static {
		r.dynamic = append(r.dynamic, i)
		for k, b := range r.buckets {
			r.buckets[k] = append(b, i)
		}
		return nil
	}
	b, ok := r.buckets[pat.first]
	if !ok {
		b = append([]int(nil), r.dynamic...)
	}
	r.buckets[pat.first] = append(b, i)
	return nil
}

// maxSegs is how many path segments are split without allocating.
const maxSegs = 16

// ServeHTTP dispatches req to the first matching route, with its path
// parameters set as path values on req itself, as http.ServeMux sets its
// wildcards (a copy of the request with a context naming the route cost
// two allocations per request, for a value nothing read); requests
// matching no route go to the notFound handler.
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	var segBuf [maxSegs]string
	var capBuf [8]capture
	e, caps := r.find(req.Method, path, splitPath(segBuf[:0], path), capBuf[:0])
	if e == nil {
		r.notFound.ServeHTTP(w, req)
		return
	}
	reqlog.SetRoute(w, e.pattern)
	for _, c := range caps {
		if c.name == "" {
			continue
		}
		req.SetPathValue(c.name, decodeParam(c.value))
	}
	e.route.Handler.ServeHTTP(w, req)
}

// Len returns the number of routes in the table.
func (r *Router) Len() int { return len(r.routes) }

// Lookup returns the route a request with this method and escaped URL path
// would be served by, or nil when none matches. CORS preflight uses it to
// find the route an OPTIONS request asks about. Callers must not modify the
// Route.
func (r *Router) Lookup(method, path string) *Route {
	if path == "" {
		path = "/"
	}
	var segBuf [maxSegs]string
	var capBuf [8]capture
	e, _ := r.find(method, path, splitPath(segBuf[:0], path), capBuf[:0])
	if e == nil {
		return nil
	}
	return &e.route
}

// find returns the first route matching method and path (split into segs),
// with its captures appended to caps.
func (r *Router) find(method, path string, segs []string, caps []capture) (*entry, []capture) {
	cands := r.dynamic
	if len(segs) > 0 {
		if b, ok := r.buckets[lowerASCII(segs[0])]; ok {
			cands = b
		}
	}
	asset := -1 // unknown until a SkipAssets route asks
	for _, i := range cands {
		e := &r.routes[i]
		if !methodMatches(e.method, method) {
			continue
		}
		if e.route.SkipAssets {
			if asset < 0 {
				asset = 0
				if LooksLikeAsset(path) {
					asset = 1
				}
			}
			if asset == 1 {
				continue
			}
		}
		if got, ok := e.pat.match(path, segs, caps); ok {
			return e, got
		}
	}
	return nil, nil
}

func methodMatches(route, method string) bool {
	switch route {
	case "", method:
		return true
	case http.MethodGet:
		return method == http.MethodHead
	}
	return false
}

// decodeParam percent-decodes a captured value as Express' decodeURIComponent
// does ("+" stays "+"). A malformed escape keeps the raw value rather than
// failing the request: net/http already rejects such request lines, so only
// hand-built requests get here.
func decodeParam(v string) string {
	if !strings.Contains(v, "%") {
		return v
	}
	d, err := url.PathUnescape(v)
	if err != nil {
		return v
	}
	return d
}

// LooksLikeAsset reports whether the last segment of the URL path p looks
// like a file name: a dot with at least one character on each side (Sails'
// LOOKS_LIKE_ASSET_RX).
func LooksLikeAsset(p string) bool {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	seg := p[strings.LastIndexByte(p, '/')+1:]
	return len(seg) >= 3 && strings.Contains(seg[1:len(seg)-1], ".")
}

// splitPath appends the segments of p after its leading slash: "/a/b/" →
// ["a", "b", ""], "/" → [""]. A path not starting with "/" has no segments.
func splitPath(dst []string, p string) []string {
	if !strings.HasPrefix(p, "/") {
		return dst
	}
	p = p[1:]
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return append(dst, p)
		}
		dst = append(dst, p[:i])
		p = p[i+1:]
	}
}

// lowerASCII lower-cases ASCII letters, allocating only when there are some.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// wildcardName names the n-th unnamed capture (a "*" or a regex group
// without a listed name), as Express numbers req.params.
func wildcardName(n int) string { return strconv.Itoa(n) }
