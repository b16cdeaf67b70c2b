package router_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/internal/router"
)

// served reports what the router did with one request: which route answered
// ("" for notFound) and the path values it saw.
type served struct {
	route  string
	values map[string]string
}

func serve(t *testing.T, r *router.Router, method, target string) served {
	t.Helper()
	var got served
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, target, nil)
	r.ServeHTTP(rec, req)
	got.route = rec.Header().Get("X-Route")
	if v := rec.Header().Get("X-Values"); v != "" {
		got.values = map[string]string{}
		for kv := range strings.SplitSeq(v, "\x00") {
			k, val, _ := strings.Cut(kv, "=")
			got.values[k] = val
		}
	}
	return got
}

// recorder answers with the route's name and the path values named in
// names that are set (non-empty).
func recorder(name string, names ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Route", name)
		var kv []string
		for _, n := range names {
			if v := r.PathValue(n); v != "" {
				kv = append(kv, n+"="+v)
			}
		}
		w.Header().Set("X-Values", strings.Join(kv, "\x00"))
	})
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		method  string // route method
		params  []string
		reqM    string
		target  string
		match   bool
		values  map[string]string
	}{
		{"literal", "/user", "GET", nil, "GET", "/user", true, nil},
		{"literal case-insensitive", "/user", "GET", nil, "GET", "/USER", true, nil},
		{"trailing slash tolerated", "/user", "GET", nil, "GET", "/user/", true, nil},
		{"two trailing slashes", "/user", "GET", nil, "GET", "/user//", false, nil},
		{"pattern trailing slash", "/user/", "GET", nil, "GET", "/user", true, nil},
		{"prefix is not a match", "/user", "GET", nil, "GET", "/user/1", false, nil},
		{"method mismatch", "/user", "POST", nil, "GET", "/user", false, nil},
		{"all verbs", "/user", "", nil, "DELETE", "/user", true, nil},
		{"HEAD matches GET", "/user", "GET", nil, "HEAD", "/user", true, nil},
		{"GET does not match HEAD route", "/user", "HEAD", nil, "GET", "/user", false, nil},
		{"param", "/user/:id", "GET", []string{"id"}, "GET", "/user/42", true, map[string]string{"id": "42"}},
		{"param keeps case", "/user/:id", "GET", []string{"id"}, "GET", "/User/AbC", true, map[string]string{"id": "AbC"}},
		{"param percent-decoded", "/user/:id", "GET", []string{"id"}, "GET", "/user/a%2Fb%20c", true, map[string]string{"id": "a/b c"}},
		{"param plus kept", "/user/:id", "GET", []string{"id"}, "GET", "/user/a+b", true, map[string]string{"id": "a+b"}},
		{"param with dot", "/user/:id", "GET", []string{"id"}, "GET", "/user/a.b", true, map[string]string{"id": "a.b"}},
		{"param trailing slash", "/user/:id", "GET", []string{"id"}, "GET", "/user/7/", true, map[string]string{"id": "7"}},
		{"param missing", "/user/:id", "GET", []string{"id"}, "GET", "/user", false, nil},
		{"param empty", "/user/:id", "GET", []string{"id"}, "GET", "/user/", false, nil},
		{"param one segment", "/user/:id", "GET", []string{"id"}, "GET", "/user/1/2", false, nil},
		{"two params", "/user/:parentid/pets/:childid", "PUT", []string{"parentid", "childid"}, "PUT", "/user/1/PETS/2", true, map[string]string{"parentid": "1", "childid": "2"}},
		{"optional present", "/user/:id?", "DELETE", []string{"id"}, "DELETE", "/user/3", true, map[string]string{"id": "3"}},
		{"optional absent", "/user/:id?", "DELETE", []string{"id"}, "DELETE", "/user", true, nil},
		{"optional absent slash", "/user/:id?", "DELETE", []string{"id"}, "DELETE", "/user/", true, nil},
		{"optional in middle skipped", "/user/:id?/edit", "GET", []string{"id"}, "GET", "/user/edit", true, nil},
		{"optional in middle taken", "/user/:id?/edit", "GET", []string{"id"}, "GET", "/user/5/edit", true, map[string]string{"id": "5"}},
		{"wildcard", "/files/*", "GET", []string{"0"}, "GET", "/files/a/b.txt", true, map[string]string{"0": "a/b.txt"}},
		{"wildcard empty", "/files/*", "GET", []string{"0"}, "GET", "/files/", true, nil},
		{"wildcard needs slash", "/files/*", "GET", []string{"0"}, "GET", "/files", false, nil},
		{"wildcard decoded", "/files/*", "GET", []string{"0"}, "GET", "/files/a%20b/c", true, map[string]string{"0": "a b/c"}},
		{"root wildcard", "/*", "", []string{"0"}, "POST", "/anything/at/all", true, map[string]string{"0": "anything/at/all"}},
		{"wildcard middle", "/a/*/b", "GET", []string{"0"}, "GET", "/a/x/y/b", true, map[string]string{"0": "x/y"}},
		{"two wildcards", "/*/*", "GET", []string{"0", "1"}, "GET", "/a/b/c", true, map[string]string{"0": "a/b", "1": "c"}},
		{"root", "/", "GET", nil, "GET", "/", true, nil},
		{"root not other", "/", "GET", nil, "GET", "/x", false, nil},
		{"format param", "/file/:name.:ext", "GET", []string{"name", "ext"}, "GET", "/file/a.png", true, map[string]string{"name": "a", "ext": "png"}},
		{"custom capture", `/n/:id(\d+)`, "GET", []string{"id"}, "GET", "/n/12", true, map[string]string{"id": "12"}},
		{"custom capture refuses", `/n/:id(\d+)`, "GET", []string{"id"}, "GET", "/n/ab", false, nil},
		{"mixed literal and param", "/v:version/x", "GET", []string{"version"}, "GET", "/v2/X", true, map[string]string{"version": "2"}},
		{"unicode literal", "/café", "GET", nil, "GET", "/caf%C3%A9", true, nil},
		{"encoded literal is not decoded", "/user", "GET", nil, "GET", "/us%65r", false, nil},
		{"regex route", `r|^/foo/(\d+)/(\w+)$|id,name`, "GET", []string{"id", "name", "0", "1"}, "GET", "/foo/12/bob", true,
			map[string]string{"id": "12", "name": "bob", "0": "12", "1": "bob"}},
		{"regex route case-sensitive", `r|^/foo/(\d+)$|id`, "GET", []string{"id"}, "GET", "/FOO/12", false, nil},
		{"regex route unnamed", `r|^/bar/(.*)$|`, "GET", []string{"0"}, "GET", "/bar/x%2Fy", true, map[string]string{"0": "x/y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := router.New(nil)
			if err := r.Add(router.Route{Method: tt.method, Path: tt.pattern, Handler: recorder("r", tt.params...)}); err != nil {
				t.Fatalf("Add(%q) = %v", tt.pattern, err)
			}
			got := serve(t, r, tt.reqM, tt.target)
			if (got.route == "r") != tt.match {
				t.Fatalf("%s %s against %s %q: matched = %v, want %v", tt.reqM, tt.target, tt.method, tt.pattern, got.route == "r", tt.match)
			}
			if !tt.match {
				return
			}
			if diff := cmp.Diff(tt.values, got.values); diff != "" {
				t.Errorf("%s %s against %q: path values (-want +got):\n%s", tt.reqM, tt.target, tt.pattern, diff)
			}
		})
	}
}

func TestOrderAndFallthrough(t *testing.T) {
	r := router.New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Route", "notfound")
		w.WriteHeader(http.StatusNotFound)
	}))
	routes := []router.Route{
		{Method: "GET", Path: "/user/find", Handler: recorder("shortcut-find")},
		{Method: "GET", Path: "/user/find/:id", Handler: recorder("shortcut-findone", "id"), SkipAssets: true},
		{Method: "GET", Path: "/user", Handler: recorder("find")},
		{Method: "GET", Path: "/user/:id", Handler: recorder("findone", "id"), SkipAssets: true},
		{Method: "POST", Path: "/user", Handler: recorder("create")},
		{Method: "DELETE", Path: "/user/:id?", Handler: recorder("destroy", "id")},
		{Method: "PUT", Path: "/user/:id", Handler: recorder("update", "id")},
		{Method: "GET", Path: "/:anything/special", Handler: recorder("dynamic", "anything")},
		{Path: "/*", Handler: recorder("catchall")},
	}
	for _, rt := range routes {
		if err := r.Add(rt); err != nil {
			t.Fatalf("Add(%s %s) = %v", rt.Method, rt.Path, err)
		}
	}
	tests := []struct {
		method, target, want string
	}{
		{"GET", "/user/find", "shortcut-find"},
		{"GET", "/user/find/3", "shortcut-findone"},
		{"GET", "/user/3", "findone"},
		{"GET", "/USER/", "find"},
		{"HEAD", "/user/3", "findone"},
		{"POST", "/user", "create"},
		{"DELETE", "/user", "destroy"},
		{"PUT", "/user/3", "update"},
		{"GET", "/user/special", "findone"}, // added earlier, so it wins
		{"GET", "/pet/special", "dynamic"},
		{"GET", "/user/a.b", "catchall"}, // skipAssets: findone is skipped
		{"GET", "/user/a.b/", "findone"},
		{"GET", "/user/.b", "findone"},
		{"GET", "/user/find/x.json", "catchall"},
		{"PATCH", "/nowhere", "catchall"},
	}
	for _, tt := range tests {
		if got := serve(t, r, tt.method, tt.target); got.route != tt.want {
			t.Errorf("%s %s served by %q, want %q", tt.method, tt.target, got.route, tt.want)
		}
	}

	r2 := router.New(nil)
	if err := r2.Add(router.Route{Method: "GET", Path: "/a", Handler: recorder("a")}); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	r2.ServeHTTP(rec, httptest.NewRequest("GET", "/b", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /b with nil notFound: status %d, want 404", rec.Code)
	}
}

func TestLookupOptions(t *testing.T) {
	r := router.New(nil)
	var id string
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { id = req.PathValue("id") })
	opts := map[string]any{"model": "user"}
	if err := r.Add(router.Route{Method: "get", Path: "/user/:id", Handler: h, Options: opts}); err != nil {
		t.Fatal(err)
	}
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/user/1", nil))
	if id != "1" {
		t.Errorf("PathValue(id) = %q, want 1", id)
	}
	got := r.Lookup("GET", "/user/1")
	if got == nil {
		t.Fatal("Lookup() = nil")
	}
	if got.Method != "GET" || got.Path != "/user/:id" {
		t.Errorf("Lookup() = %s %s, want GET /user/:id", got.Method, got.Path)
	}
	if o, _ := got.Options.(map[string]any); o["model"] != "user" {
		t.Errorf("Lookup().Options = %v, want %v", got.Options, opts)
	}
}

func TestAddErrors(t *testing.T) {
	h := recorder("x")
	tests := []router.Route{
		{Path: "", Handler: h},
		{Path: "user", Handler: h},
		{Path: "/user", Handler: nil},
		{Method: "GE T", Path: "/user", Handler: h},
		{Path: "/a/(foo|bar)", Handler: h},
		{Path: "/a/:id(\\d+", Handler: h},
		{Path: "/a/:id([)", Handler: h},
		{Path: "r|^/foo(", Handler: h},
		{Path: "r|^/foo(|id", Handler: h},
	}
	for _, rt := range tests {
		if err := router.New(nil).Add(rt); err == nil {
			t.Errorf("Add(%q %q) = nil, want an error", rt.Method, rt.Path)
		} else if !strings.Contains(err.Error(), strconv.Quote(rt.Path)) {
			t.Errorf("Add(%q) error %q does not name the route", rt.Path, err)
		}
	}
}

func TestParseAddress(t *testing.T) {
	tests := []struct {
		addr, method, path string
		ok                 bool
	}{
		{"GET /user/:id", "GET", "/user/:id", true},
		{"/x", "", "/x", true},
		{"get /x", "GET", "/x", true},
		{"  post   /x  ", "POST", "/x", true},
		{"all /x", "", "/x", true},
		{"Delete /user/:id?", "DELETE", "/user/:id?", true},
		{"patch\t/x", "PATCH", "/x", true},
		{"head /x", "HEAD", "/x", true},
		{"options /x", "OPTIONS", "/x", true},
		{"*", "", "/*", true},
		{"get *", "GET", "/*", true},
		{`r|^/foo/(\d+)$|id`, "", `r|^/foo/(\d+)$|id`, true},
		{`GET r|^/foo/(\d+)$|id`, "GET", `r|^/foo/(\d+)$|id`, true},
		{"FETCH /x", "", "", false},
		{"x", "", "", false},
		{"", "", "", false},
		{"GET user", "", "", false},
		{"/a b", "", "", false},
	}
	for _, tt := range tests {
		m, p, err := router.ParseAddress(tt.addr)
		if (err == nil) != tt.ok {
			t.Errorf("ParseAddress(%q) error = %v, want ok %v", tt.addr, err, tt.ok)
			continue
		}
		if tt.ok && (m != tt.method || p != tt.path) {
			t.Errorf("ParseAddress(%q) = (%q, %q), want (%q, %q)", tt.addr, m, p, tt.method, tt.path)
		}
	}
}

func TestDefaultSkipAssets(t *testing.T) {
	tests := []struct {
		method, path string
		want         bool
	}{
		{"GET", "/user/:id", true},
		{"get", "/user/:id", true},
		{"GET", "/user/:id?", true},
		{"GET", "/user/:id/", true},
		{"GET", "/file/:name.:ext", true},
		{"", "/user/:id", true},
		{"GET", "/user", false},
		{"GET", "/user/:id/pets", false},
		{"GET", "/user/:", false},
		{"POST", "/user/:id", false},
		{"DELETE", "/user/:id?", false},
		{"GET", `r|^/foo/(\d+)$|:id`, false},
	}
	for _, tt := range tests {
		if got := router.DefaultSkipAssets(tt.method, tt.path); got != tt.want {
			t.Errorf("DefaultSkipAssets(%q, %q) = %v, want %v", tt.method, tt.path, got, tt.want)
		}
	}
}

func TestLooksLikeAsset(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/user/a.b", true},
		{"/a.js", true},
		{"/user/a..", true},
		{"/user/...", true},
		{"/user/ab", false},
		{"/user/.b", false},
		{"/user/a.", false},
		{"/user/a.b/", false},
		{"/a.b/c", false},
		{"/user/a?x=b.c", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := router.LooksLikeAsset(tt.path); got != tt.want {
			t.Errorf("LooksLikeAsset(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := router.New(nil)
	for i, a := range []string{"PUT /user/:id", "/any", "GET /file/:name"} {
		method, path, err := router.ParseAddress(a)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Add(router.Route{Method: method, Path: path, Handler: h, Options: i, SkipAssets: router.DefaultSkipAssets(method, path)})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		method, path string
		want         int // index of the route, -1 for none
	}{
		{"PUT", "/user/3", 0},
		{"POST", "/user/3", -1},
		{"DELETE", "/any", 1},
		{"GET", "/file/a", 2},
		{"GET", "/file/a.txt", -1},
		{"GET", "/nothing", -1},
	} {
		got := -1
		if rt := r.Lookup(tc.method, tc.path); rt != nil {
			got = rt.Options.(int)
		}
		if got != tc.want {
			t.Errorf("Lookup(%s, %s) = route %d, want %d", tc.method, tc.path, got, tc.want)
		}
	}
}
