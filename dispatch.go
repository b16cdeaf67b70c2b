package skiff

import (
	"net/http"
	"strings"
)

// dispatch is the app's top handler: the socket.io endpoint and the app.
// It was an http.ServeMux with "/socket.io/" and "/", whose routing (path
// cleaning, the pattern tree, the matches it allocates) cost two
// allocations and as many instructions as signing a session cookie on
// every request. The mux still answers every request whose answer it
// shapes itself (redirects to a clean path or to "/socket.io/", "*",
// CONNECT, and the socket.io endpoint); the rest go to the app directly,
// with the Pattern the mux would have given them.
type dispatch struct {
	mux *http.ServeMux
	app http.Handler
}

func newDispatch(sockets, app http.Handler) *dispatch {
	mux := http.NewServeMux()
	mux.Handle("/socket.io/", sockets)
	mux.Handle("/", app)
	return &dispatch{mux: mux, app: app}
}

func (d *dispatch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	if r.Method == http.MethodConnect || r.RequestURI == "*" || !cleanPath(p) || strings.HasPrefix(p, "/socket.io") {
		d.mux.ServeHTTP(w, r)
		return
	}
	r.Pattern = "/"
	d.app.ServeHTTP(w, r)
}

// cleanPath reports whether the mux leaves the escaped path p as it is:
// rooted, without empty, "." or ".." segments (a trailing slash aside).
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for i := 1; i <= len(p); {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			j = len(p) - i
		}
		switch seg := p[i : i+j]; {
		case seg == "" && i+j < len(p), seg == ".", seg == "..":
			return false
		}
		i += j + 1
	}
	return true
}
