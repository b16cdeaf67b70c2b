package assets_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skiffhq/skiff/internal/assets"
)

// next stands for the 404 handler behind the files.
var next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusTeapot)
	_, _ = w.Write([]byte("next"))
})

func testFS() fstest.MapFS {
	return fstest.MapFS{
		"index.html":                  {Data: []byte("<!doctype html><title>home</title>")},
		"js/app.js":                   {Data: []byte("console.log(1)")},
		"styles/site.css":             {Data: []byte("body{}")},
		"images/logo.svg":             {Data: []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")},
		"data/list.json":              {Data: []byte("[]")},
		"docs/index.html":             {Data: []byte("docs")},
		"empty/readme.txt":            {Data: []byte("no index here")},
		"noext":                       {Data: []byte("<html><body>sniffed</body></html>")},
		".env":                        {Data: []byte("SECRET=1")},
		".git/config":                 {Data: []byte("[core]")},
		"js/.hidden.js":               {Data: []byte("hidden")},
		"dependencies/sails.io.js":    {Data: []byte("/* sails */")},
		"dependencies/sails.io.js.gz": {Data: []byte("gz")},
	}
}

func serve(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

func TestHandlerServesFiles(t *testing.T) {
	h := assets.Handler(testFS(), assets.Options{}, next)
	tests := []struct {
		target, wantType, wantBody string
	}{
		{"/", "text/html; charset=utf-8", "<!doctype html><title>home</title>"},
		{"/js/app.js", "text/javascript; charset=utf-8", "console.log(1)"},
		{"/styles/site.css", "text/css; charset=utf-8", "body{}"},
		{"/images/logo.svg", "image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'/>"},
		{"/data/list.json", "application/json", "[]"},
		{"/docs/", "text/html; charset=utf-8", "docs"},
		{"/noext", "text/html; charset=utf-8", "<html><body>sniffed</body></html>"},
		{"/dependencies/sails.io.js?v=1", "text/javascript; charset=utf-8", "/* sails */"},
		{"/js//app.js", "text/javascript; charset=utf-8", "console.log(1)"},
		{"/index.html", "text/html; charset=utf-8", "<!doctype html><title>home</title>"},
		{"/docs/index.html", "text/html; charset=utf-8", "docs"},
	}
	for _, tt := range tests {
		rec := serve(t, h, http.MethodGet, tt.target)
		if rec.Code != http.StatusOK || rec.Body.String() != tt.wantBody {
			t.Errorf("GET %s = %d %q, want 200 %q", tt.target, rec.Code, rec.Body, tt.wantBody)
		}
		if got := rec.Header().Get("Content-Type"); got != tt.wantType {
			t.Errorf("GET %s Content-Type = %q, want %q", tt.target, got, tt.wantType)
		}
	}
}

func TestHandlerHead(t *testing.T) {
	rec := serve(t, assets.Handler(testFS(), assets.Options{}, next), http.MethodHead, "/js/app.js")
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != "14" {
		t.Errorf("HEAD /js/app.js = %d, body %q, Content-Length %q; want 200, no body, 14",
			rec.Code, rec.Body, rec.Header().Get("Content-Length"))
	}
}

func TestHandlerPassesOn(t *testing.T) {
	h := assets.Handler(testFS(), assets.Options{}, next)
	tests := []struct {
		method, target string
	}{
		{http.MethodPost, "/js/app.js"},
		{http.MethodPut, "/"},
		{http.MethodDelete, "/index.html"},
		{http.MethodGet, "/missing.js"},
		{http.MethodGet, "/js/missing/"},
		{http.MethodGet, "/empty/"},           // no index.html: no listing
		{http.MethodGet, "/empty"},            // nor a redirect towards one
		{http.MethodGet, "/js/"},              // a directory without index
		{http.MethodGet, "/.env"},             // dot files are never served
		{http.MethodGet, "/.git/config"},      // nor files in dot folders
		{http.MethodGet, "/js/.hidden.js"},    // at any depth
		{http.MethodGet, "/js/app.js/"},       // a file is not a folder
		{http.MethodGet, "/index.html/x"},     // nor has children
		{http.MethodGet, "/..%5c.env"},        // backslashes are refused
		{http.MethodGet, "/js/app.js%00.png"}, // so are NULs
	}
	for _, tt := range tests {
		rec := serve(t, h, tt.method, tt.target)
		if rec.Code != http.StatusTeapot {
			t.Errorf("%s %s = %d %q, want it passed on to the next handler", tt.method, tt.target, rec.Code, rec.Body)
		}
	}
}

func TestHandlerRedirectsDirectories(t *testing.T) {
	h := assets.Handler(testFS(), assets.Options{}, next)
	rec := serve(t, h, http.MethodGet, "/docs?x=1")
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/docs/?x=1" {
		t.Errorf("GET /docs?x=1 = %d Location %q, want 301 /docs/?x=1", rec.Code, rec.Header().Get("Location"))
	}
}

func TestHandlerCacheControl(t *testing.T) {
	for _, tt := range []struct {
		maxAge time.Duration
		want   string
	}{
		{0, "public, max-age=0"},
		{time.Millisecond, "public, max-age=0"}, // Sails' development default
		{90 * time.Second, "public, max-age=90"},
		{-time.Second, "public, max-age=0"},
	} {
		rec := serve(t, assets.Handler(testFS(), assets.Options{MaxAge: tt.maxAge}, next), http.MethodGet, "/js/app.js")
		if got := rec.Header().Get("Cache-Control"); got != tt.want {
			t.Errorf("maxAge %v: Cache-Control = %q, want %q", tt.maxAge, got, tt.want)
		}
	}
	// The 404 behind the files is not marked cacheable.
	rec := serve(t, assets.Handler(testFS(), assets.Options{MaxAge: time.Hour}, next), http.MethodGet, "/missing.js")
	if got := rec.Header().Get("Cache-Control"); got != "" {
		t.Errorf("GET /missing.js Cache-Control = %q, want none", got)
	}
}

func TestHandlerNilFS(t *testing.T) {
	rec := serve(t, assets.Handler(nil, assets.Options{}, next), http.MethodGet, "/")
	if rec.Code != http.StatusTeapot {
		t.Errorf("GET / with no files = %d, want the next handler's answer", rec.Code)
	}
}

// TestDirStaysInside checks that neither ".." in the URL nor a symbolic
// link inside the folder reaches a file outside it.
func TestDirStaysInside(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	public := filepath.Join(root, "public")
	if err := os.MkdirAll(filepath.Join(public, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(public, "ok.txt"), []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(public, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(public, "sub", "up")); err != nil {
		t.Fatal(err)
	}
	h := assets.Handler(assets.Dir(public), assets.Options{}, next)

	if rec := serve(t, h, http.MethodGet, "/ok.txt"); rec.Code != http.StatusOK || rec.Body.String() != "ok" {
		t.Fatalf("GET /ok.txt = %d %q, want 200 ok", rec.Code, rec.Body)
	}
	for _, target := range []string{
		"/../secret.txt", "/%2e%2e/secret.txt", "/sub/../../secret.txt", "/%2e%2e%2fsecret.txt",
		"/link.txt", "/sub/up/secret.txt", "/sub/up/",
	} {
		rec := serve(t, h, http.MethodGet, target)
		if strings.Contains(rec.Body.String(), "secret") || rec.Code == http.StatusOK {
			t.Errorf("GET %s = %d %q, want nothing from outside the folder", target, rec.Code, rec.Body)
		}
	}
}
