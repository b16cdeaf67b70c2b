// Package assets serves an app's static files, as Sails' www middleware
// (serve-static over the assets/ folder) does: a GET or HEAD request whose
// path names a file gets that file, a directory gets its index.html, and
// everything else goes on to the next handler (the 404). Dot files are
// never served and directories are never listed.
package assets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// Handler returns a handler that serves the files of fsys and passes every
// request it does not serve to next: requests that are not GET or HEAD,
// paths with a segment starting with "." (".env", ".git/config"), files
// that do not exist and directories without an index.html. A directory
// with an index.html requested without its trailing slash is redirected
// (301) to the path with one. Content types come from the file extension
// (mime.TypeByExtension), else from sniffing the content; Range,
// If-Modified-Since, If-None-Match and HEAD are answered as
// http.ServeContent does. Files carry "Cache-Control: public, max-age=N",
// N being opts.MaxAge in whole seconds, and with opts.ETag the weak ETag
// serve-static gives them, as serve-static sends. A request with
// Cache-Control: no-cache always gets the whole file, as with send's
// freshness check. A nil fsys serves nothing.
//
// The path is cleaned before use, so ".." can never leave fsys; Dir
// additionally keeps symbolic links inside the folder. The handler is safe
// for concurrent use when fsys is.
func Handler(fsys fs.FS, opts Options, next http.Handler) http.Handler {
	if fsys == nil {
		return next
	}
	cacheControl := "public, max-age=" + strconv.FormatInt(int64(max(opts.MaxAge, 0)/time.Second), 10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		name, ok := fileName(r.URL.Path)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			// Missing files, bad names and unreadable entries alike fall
			// through to the 404, as serve-static's fallthrough does.
			next.ServeHTTP(w, r)
			return
		}
		if fi.IsDir() {
			index := path.Join(name, "index.html")
			if fi, err := fs.Stat(fsys, index); err != nil || !fi.Mode().IsRegular() {
				next.ServeHTTP(w, r) // no directory listings
				return
			}
			if !strings.HasSuffix(r.URL.Path, "/") {
				target := r.URL.Path + "/"
				if r.URL.RawQuery != "" {
					target += "?" + r.URL.RawQuery
				}
				http.Redirect(w, r, target, http.StatusMovedPermanently)
				return
			}
			name = index
		} else if !fi.Mode().IsRegular() || strings.HasSuffix(r.URL.Path, "/") {
			next.ServeHTTP(w, r)
			return
		}
		serveFile(w, r, fsys, name, cacheControl, opts.ETag, next)
	})
}

// Options tune Handler.
type Options struct {
	// MaxAge is the Cache-Control max-age of every file (Sails' http.cache).
	MaxAge time.Duration
	// ETag gives files serve-static's weak ETag, W/"<size>-<mtime>" (both
	// in hex, the time in milliseconds), so that If-None-Match can be
	// answered with 304. Files without a modification time (embed.FS) get
	// none: their size alone would call a changed file of the same size
	// unchanged.
	ETag bool
}

// serveFile answers with the regular file name, or passes r to next when it
// cannot be opened after all (removed meanwhile).
func serveFile(w http.ResponseWriter, r *http.Request, fsys fs.FS, name, cacheControl string, etag bool, next http.Handler) {
	f, err := fsys.Open(name)
	if err != nil {
		next.ServeHTTP(w, r)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		next.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Cache-Control", cacheControl)
	if etag && !fi.ModTime().IsZero() {
		w.Header().Set("Etag", statTag(fi.Size(), fi.ModTime()))
	}
	r = unconditional(r)
	if rs, ok := f.(io.ReadSeeker); ok {
		// Not http.ServeFileFS: it would redirect /index.html to ./, where
		// serve-static serves the file.
		http.ServeContent(w, r, name, fi.ModTime(), rs)
		return
	}
	http.ServeFileFS(w, r, fsys, name) // an fs.FS whose files cannot seek
}

// statTag is the etag package's tag of a file's stats, weak, as send sets
// it: W/"<size in hex>-<modification time in milliseconds, in hex>".
func statTag(size int64, mtime time.Time) string {
	b := make([]byte, 0, 40)
	b = append(b, `W/"`...)
	b = strconv.AppendInt(b, size, 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, mtime.UnixMilli(), 16)
	return string(append(b, '"'))
}

// unconditional returns r without If-None-Match and If-Modified-Since when
// it carries Cache-Control: no-cache (a browser's reload), which send's
// freshness check (the fresh package) reads as "send it all"; otherwise r
// itself.
func unconditional(r *http.Request) *http.Request {
	if r.Header.Get("If-None-Match") == "" && r.Header.Get("If-Modified-Since") == "" {
		return r
	}
	for _, cc := range r.Header.Values("Cache-Control") {
		for directive := range strings.SplitSeq(cc, ",") {
			if strings.TrimSpace(directive) == "no-cache" {
				r2 := r.Clone(r.Context())
				r2.Header.Del("If-None-Match")
				r2.Header.Del("If-Modified-Since")
				return r2
			}
		}
	}
	return r
}

// fileName turns a URL path into a name for fsys ("." for the root). It
// reports false for paths that must not be served: those not starting with
// "/", containing a NUL or a backslash, or with a segment that starts with
// "." once cleaned.
func fileName(urlPath string) (string, bool) {
	if !strings.HasPrefix(urlPath, "/") || strings.ContainsAny(urlPath, "\x00\\") {
		return "", false
	}
	name := strings.TrimPrefix(path.Clean(urlPath), "/")
	if name == "" {
		return ".", true
	}
	for seg := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(seg, ".") {
			return "", false
		}
	}
	return name, fs.ValidPath(name)
}

// Dir returns the files under the folder dir as an fs.FS in which every
// name is resolved inside dir (os.OpenInRoot): neither ".." nor a symbolic
// link can reach a file outside it. The folder is opened anew on every
// Open, so the FS holds no descriptor and needs no closing.
func Dir(dir string) fs.FS { return rootFS(dir) }

type rootFS string

// Open implements fs.FS.
func (d rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := os.OpenInRoot(string(d), name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = name // never show the folder's own location
			return nil, pe
		}
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return f, nil
}
