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
// If-Modified-Since and HEAD are answered as http.ServeContent does. Files
// carry "Cache-Control: public, max-age=N", N being maxAge in whole
// seconds, as serve-static sends. A nil fsys serves nothing.
//
// The path is cleaned before use, so ".." can never leave fsys; Dir
// additionally keeps symbolic links inside the folder. The handler is safe
// for concurrent use when fsys is.
func Handler(fsys fs.FS, maxAge time.Duration, next http.Handler) http.Handler {
	if fsys == nil {
		return next
	}
	cacheControl := "public, max-age=" + strconv.FormatInt(int64(max(maxAge, 0)/time.Second), 10)
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
		serveFile(w, r, fsys, name, cacheControl, next)
	})
}

// serveFile answers with the regular file name, or passes r to next when it
// cannot be opened after all (removed meanwhile).
func serveFile(w http.ResponseWriter, r *http.Request, fsys fs.FS, name, cacheControl string, next http.Handler) {
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
	if rs, ok := f.(io.ReadSeeker); ok {
		// Not http.ServeFileFS: it would redirect /index.html to ./, where
		// serve-static serves the file.
		http.ServeContent(w, r, name, fi.ModTime(), rs)
		return
	}
	http.ServeFileFS(w, r, fsys, name) // an fs.FS whose files cannot seek
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
