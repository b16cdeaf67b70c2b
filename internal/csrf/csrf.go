// Package csrf is Sails' CSRF protection (security.csrf, csurf underneath):
// requests that change things (POST, PUT, PATCH, DELETE) must carry a token
// minted for the secret kept in their session, or they are refused with
// 403 Forbidden. Tokens are read, in csurf's order, from the body's _csrf
// field, the query's _csrf parameter, then the csrf-token, xsrf-token,
// x-csrf-token and x-xsrf-token headers.
//
// Socket virtual requests go through the same check: they share the
// session of their handshake cookie, so a token fetched over HTTP can be
// spent over the socket (in data._csrf or an x-csrf-token header).
package csrf

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/skiffhq/skiff/internal/params"
	"github.com/skiffhq/skiff/internal/session"
)

// SessionKey is the session key holding the CSRF secret (Sails'
// req.session.csrfSecret).
const SessionKey = "csrfSecret"

// headers are the request headers a token is read from, after the body and
// the query, in csurf's order.
var headers = []string{"Csrf-Token", "Xsrf-Token", "X-Csrf-Token", "X-Xsrf-Token"}

// Checked reports whether requests with this method need a token: every
// method but GET, HEAD and OPTIONS.
func Checked(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// Config configures Protect.
type Config struct {
	// BodyLimit is the most body bytes read to find a _csrf field (the
	// app's body limit); a larger body is left to the handler to refuse.
	BodyLimit int64
	// Forbidden answers a refused request.
	Forbidden http.Handler
	// Log receives a warning when a checked request has no session to
	// check against (sessions disabled for it); nil discards.
	Log *slog.Logger
}

type appliesKey struct{}

// Protect returns next guarded by the CSRF check, for the routes CSRF
// applies to. A checked request without a valid token, or without a
// session, is answered by cfg.Forbidden and never reaches next. Every
// request that passes is marked so that Token mints tokens for it.
func Protect(next http.Handler, cfg Config) http.Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := session.FromContext(r.Context())
		if Checked(r.Method) {
			if s == nil {
				// Sails answers 500 here in development: a request the client
				// controls (nosession) must not cause a 500, so Skiff refuses
				// and explains in the log.
				cfg.Log.WarnContext(r.Context(), "CSRF is enabled for this route, but the request has no session", "method", r.Method, "path", r.URL.Path)
				cfg.Forbidden.ServeHTTP(w, r)
				return
			}
			if !Verify(s.GetString(SessionKey), Extract(r, cfg.BodyLimit)) {
				cfg.Forbidden.ServeHTTP(w, r)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), appliesKey{}, true)))
	})
}

// Token returns a fresh token for r's session, creating the session's
// secret on first use, as Sails' res.locals._csrf. It returns "" when CSRF
// does not apply to r's route or r has no session.
func Token(r *http.Request) string {
	if applies, _ := r.Context().Value(appliesKey{}).(bool); !applies {
		return ""
	}
	s := session.FromContext(r.Context())
	if s == nil {
		return ""
	}
	secret := s.GetString(SessionKey)
	if secret == "" {
		secret = NewSecret()
		s.Put(SessionKey, secret)
	}
	return NewToken(secret)
}

// Extract returns the token r carries, or "": the body's _csrf field (JSON,
// urlencoded or multipart bodies of at most limit bytes), else the query's
// _csrf parameter, else the first of the token headers that is set. Empty
// and non-string values count as missing. The body stays readable for the
// handler.
func Extract(r *http.Request, limit int64) string {
	if t := bodyToken(r, limit); t != "" {
		return t
	}
	if r.URL.RawQuery != "" {
		if q, err := params.ParseQuery(r.URL.RawQuery); err == nil {
			if t, _ := q["_csrf"].(string); t != "" {
				return t
			}
		}
	}
	for _, h := range headers {
		if t := r.Header.Get(h); t != "" {
			return t
		}
	}
	return ""
}

// bodyToken reads r's body (restoring it for the handler) and returns its
// _csrf field.
func bodyToken(r *http.Request, limit int64) string {
	if r.Body == nil || r.Body == http.NoBody || !params.Parses(r.Header.Get("Content-Type")) {
		return ""
	}
	if limit <= 0 {
		limit = 1 << 20
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(raw), r.Body), r.Body}
	if err != nil || int64(len(raw)) > limit {
		return ""
	}
	cp := *r
	cp.Body = io.NopCloser(bytes.NewReader(raw))
	cp.ContentLength = int64(len(raw))
	body, err := params.ReadBody(&cp, limit)
	if err != nil {
		return ""
	}
	m, _ := body.(map[string]any)
	t, _ := m["_csrf"].(string)
	return t
}

// readCloser reads the buffered start of a body, then its rest, and closes
// the original.
type readCloser struct {
	io.Reader
	io.Closer
}
