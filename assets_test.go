package skiff_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/alexedwards/scs/v2/memstore"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/internal/sockettest"
)

// countingStore is a session store that counts the sessions it looks up.
type countingStore struct {
	*memstore.MemStore
	finds atomic.Int64
}

func (s *countingStore) Find(token string) ([]byte, bool, error) {
	s.finds.Add(1)
	return s.MemStore.Find(token)
}

// TestAssets checks that static files come after every route, as Sails'
// www middleware follows its router, and get no session.
func TestAssets(t *testing.T) {
	files := fstest.MapFS{
		"index.html":  {Data: []byte("<!doctype html><title>home</title>")},
		"app.js":      {Data: []byte("console.log('app')")},
		"note":        {Data: []byte("a file shadowed by the blueprint route")},
		"hello":       {Data: []byte("a file shadowed by the custom route")},
		"files/a.txt": {Data: []byte("file a")},
	}
	store := &countingStore{MemStore: memstore.NewWithCleanupInterval(0)}
	srv := newNoteApp(t, skiff.Options{
		Assets: files,
		Routes: []skiff.Route{
			{Method: "GET", Path: "/hello", Action: "hello"},
			{Method: "GET", Path: "/login", Action: "login"},
			{Method: "GET", Path: "/files/:name", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "route "+r.PathValue("name"))
			})},
		},
		Actions: map[string]http.Handler{
			"hello": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hi") }),
			"login": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				skiff.SessionFrom(r.Context()).Put("user", "ann")
			}),
		},
		Session: skiff.SessionSettings{Store: store},
	})

	tests := []struct {
		method, path string
		wantStatus   int
		wantType     string
		wantBody     string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", "<!doctype html><title>home</title>"},
		{"HEAD", "/app.js", 200, "text/javascript; charset=utf-8", ""},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8", "console.log('app')"},
		{"GET", "/note", 200, "application/json; charset=utf-8", "[]\n"},
		{"GET", "/hello", 200, "", "hi"},
		{"GET", "/files/x", 200, "", "route x"},
		// GET routes ending in a parameter skip asset-like paths (skipAssets).
		{"GET", "/files/a.txt", 200, "text/plain; charset=utf-8", "file a"},
		{"GET", "/files/b.txt", 404, "", "Not Found"},
		{"POST", "/app.js", 404, "", "Not Found"},
		{"GET", "/missing.css", 404, "", "Not Found"},
		{"GET", "/../../etc/passwd", 404, "", "Not Found"},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || string(b) != tt.wantBody {
			t.Errorf("%s %s = %d %q, want %d %q", tt.method, tt.path, resp.StatusCode, b, tt.wantStatus, tt.wantBody)
		}
		if got := resp.Header.Get("Content-Type"); tt.wantType != "" && got != tt.wantType {
			t.Errorf("%s %s Content-Type = %q, want %q", tt.method, tt.path, got, tt.wantType)
		}
	}

	// An asset-like path gets no session: its store is not even read.
	resp, err := http.Get(srv.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookie := resp.Header.Get("Set-Cookie")
	if cookie == "" {
		t.Fatal("GET /login set no session cookie")
	}
	cookie, _, _ = strings.Cut(cookie, ";")
	load := func(path string) int64 {
		t.Helper()
		before := store.finds.Load()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Cookie", cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d, want 200", path, resp.StatusCode)
		}
		return store.finds.Load() - before
	}
	if n := load("/app.js"); n != 0 {
		t.Errorf("GET /app.js with a session cookie read the session store %d times, want 0", n)
	}
	if n := load("/"); n != 1 {
		t.Errorf("GET / with a session cookie read the session store %d times, want 1 (not an asset-like path)", n)
	}

	// Socket virtual requests go through the routes only, as in Sails.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sockettest.Dial(ctx, srv.URL, sockettest.Options{EIO: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for path, want := range map[string]int{"/app.js": 404, "/": 404, "/note": 200} {
		jwr, err := c.Request(ctx, "get", path, nil)
		if err != nil {
			t.Fatalf("GET %s over a socket: %v", path, err)
		}
		if jwr.StatusCode != want {
			t.Errorf("GET %s over a socket = %d %s, want %d", path, jwr.StatusCode, jwr.Body, want)
		}
	}
}

// TestLoadAssets checks that app.Load serves DIR/assets when it exists.
func TestLoadAssets(t *testing.T) {
	ctx := context.Background()
	env := []string{"SKIFF_DATASTORES__DEFAULT__URL=" + filepath.Join(t.TempDir(), "test.db")}
	for _, tt := range []struct {
		dir  string
		want bool
	}{
		{"examples/petshop", true},
		{"testdata/apps/basic", false},
	} {
		opts, err := app.Load(ctx, tt.dir, "development", env)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range opts.Datastores {
			d.Close()
		}
		if got := opts.Assets != nil; got != tt.want {
			t.Errorf("app.Load(%s).Assets set = %v, want %v", tt.dir, got, tt.want)
			continue
		}
		if !tt.want {
			continue
		}
		if b, err := fs.ReadFile(opts.Assets, "index.html"); err != nil || !strings.Contains(string(b), "sails.io.js") {
			t.Errorf("app.Load(%s).Assets index.html = %.40q, %v; want the demo page", tt.dir, b, err)
		}
	}
}
