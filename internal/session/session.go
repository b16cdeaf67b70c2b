// Package session gives requests a server-side session behind a signed
// cookie, as Sails' session hook (express-session) does: the cookie is
// named sails.sid by default and holds "s:<token>.<signature>", so a
// client cannot pick its own session token. Session data lives in an
// scs store (memory, Redis, or a Skiff datastore).
//
// As with Sails' saveUninitialized: true (Config.SaveUninitialized), a
// request without a valid session cookie is answered with one naming a
// fresh session, so that a browser holds its session from the first page
// load and a socket it opens then shares it. Unlike express-session, that
// session is stored only once something is put in it, under the token the
// cookie already names: API clients that never log in cost a cookie and a
// signature, never a store write. With SaveUninitialized false the cookie
// too is sent only once something is stored.
package session

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/skiffhq/skiff/internal/router"
	"github.com/skiffhq/skiff/internal/socketctx"
	"github.com/skiffhq/skiff/settings"
)

// DefaultName is the session cookie's name unless configured (Sails'
// session.name).
const DefaultName = "sails.sid"

// DefaultLifetime is how long a session lives in its store when the cookie
// has no maxAge.
const DefaultLifetime = 24 * time.Hour

// Config configures a Manager.
type Config struct {
	// Session is the app's session settings with Secret (required) and
	// Store (required; an scs.CtxStore is used with the request's context)
	// resolved. Disabled, Adapter, URL, Prefix and Datastore are the
	// caller's: they choose the store. IsSessionDisabled nil means
	// AssetLike; SaveUninitialized nil means true. The store keeps data for
	// MaxAge when positive, else DefaultLifetime.
	settings.Session
	// Partitioned sets the cookie's Partitioned attribute.
	Partitioned bool
	// OnError answers a request whose session could not be loaded or saved
	// (the store failed); nil answers 500 with a plain body.
	OnError func(w http.ResponseWriter, r *http.Request, err error)
}

// AssetLike is Sails' default isSessionDisabled: requests whose last path
// segment looks like a file name ("/js/app.js") get no session.
func AssetLike(r *http.Request) bool { return router.LooksLikeAsset(r.URL.Path) }

// Manager loads and saves sessions around requests. It is safe for
// concurrent use.
type Manager struct {
	sm                *scs.SessionManager
	name              string
	disabled          func(*http.Request) bool
	onError           func(w http.ResponseWriter, r *http.Request, err error)
	saveUninitialized bool
	signer            *signer
	// sessionCookieAttrs are the attributes of a cookie that lasts the
	// browser session ("; Path=/; HttpOnly"), written once: every
	// cookie-less request gets one.
	sessionCookieAttrs string
	// varyCookie and noCacheCookie are the Vary and Cache-Control values
	// of a response setting the cookie, shared by the responses that have
	// no other (capacity 1: an append copies).
	varyCookie, noCacheCookie []string
}

// New returns a Manager for cfg. It fails when the secret or the store is
// missing.
func New(cfg Config) (*Manager, error) {
	if cfg.Secret == "" {
		return nil, fmt.Errorf("session: a secret is required")
	}
	if cfg.Store == nil {
		return nil, fmt.Errorf("session: a store is required")
	}
	sm := scs.New()
	sm.Store = adoptingStore{inner: cfg.Store, lifetime: max(cfg.MaxAge, DefaultLifetime)}
	// A leaked store then does not hand out live session tokens.
	sm.HashTokenInStore = true
	sm.Lifetime = DefaultLifetime
	if cfg.MaxAge > 0 {
		sm.Lifetime = cfg.MaxAge
	}
	sm.Cookie.Name = cfg.Name
	if sm.Cookie.Name == "" {
		sm.Cookie.Name = DefaultName
	}
	sm.Cookie.Path = cfg.Path
	if sm.Cookie.Path == "" {
		sm.Cookie.Path = "/"
	}
	sm.Cookie.Domain = cfg.Domain
	sm.Cookie.Secure = cfg.Secure
	sm.Cookie.HttpOnly = cfg.HTTPOnly == nil || *cfg.HTTPOnly
	sm.Cookie.SameSite = cfg.SameSite
	if sm.Cookie.SameSite == 0 {
		// Unset: Lax, as browsers assume for a cookie without the
		// attribute, said explicitly so that every browser does.
		// http.SameSiteDefaultMode writes no attribute.
		sm.Cookie.SameSite = http.SameSiteLaxMode
	}
	sm.Cookie.Partitioned = cfg.Partitioned
	sm.Cookie.Persist = cfg.MaxAge > 0
	sm.Codec = uninitCodec{Codec: sm.Codec, lifetime: sm.Lifetime}
	m := &Manager{
		sm: sm, name: sm.Cookie.Name, disabled: cfg.IsSessionDisabled, onError: cfg.OnError,
		saveUninitialized: cfg.SaveUninitialized == nil || *cfg.SaveUninitialized, signer: newSigner(cfg.Secret),
	}
	c := sm.Cookie
	attrs := (&http.Cookie{
		Name: "x", Value: "x", Path: c.Path, Domain: c.Domain, Secure: c.Secure,
		HttpOnly: c.HttpOnly, SameSite: c.SameSite, Partitioned: c.Partitioned,
	}).String()
	m.sessionCookieAttrs = strings.TrimPrefix(attrs, "x=x")
	m.varyCookie = []string{"Cookie"}[:1:1]
	m.noCacheCookie = []string{`no-cache="Set-Cookie"`}[:1:1]
	if m.disabled == nil {
		m.disabled = AssetLike
	}
	if m.onError == nil {
		m.onError = func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		}
	}
	return m, nil
}

// Name returns the session cookie's name.
func (m *Manager) Name() string { return m.name }

type ctxKey struct{}

// Session is the session of one request. Its methods are safe for
// concurrent use by the handlers of that request. Values must be
// encodable with encoding/gob (register custom types with gob.Register).
type Session struct {
	sm *scs.SessionManager
	// ctx is the request context scs loaded the session data into; the data
	// is shared by every context derived from it. For a request without a
	// session cookie it is loaded on first use (see data): most such
	// requests (API clients, first page loads) never touch their session,
	// and loading an empty one was a fifth of a primary-key read's time.
	ctx context.Context
	// lazy, when set, is what data loads into ctx on first use: the
	// context and token of a session no cookie names.
	lazy *lazyLoad
	mu   sync.Mutex
}

// lazyLoad is what a Session without a cookie loads on first use.
type lazyLoad struct {
	base context.Context
	// raw is the token made for the session when fresh is set (as text:
	// the string is made only if the session is loaded); without it the
	// session loads under scs' own new token.
	raw   [tokenLen]byte
	fresh bool
	state loadState
}

// token returns the token a lazy session loads under.
func (l *lazyLoad) token() string {
	if !l.fresh {
		return ""
	}
	return string(l.raw[:])
}

// data returns the context holding the session's data, loading it first
// when the session is lazy. Loading a session no cookie names never
// reaches the store (loadFresh, or scs' new session for an empty token),
// so it does not fail; were it to, the session would be an empty one
// under a new token.
func (s *Session) data() context.Context {
	if s.lazy == nil {
		return s.ctx
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		l := s.lazy
		ctx, err := s.sm.Load(context.WithValue(l.base, loadKey{}, &l.state), l.token())
		if err != nil {
			ctx, _ = s.sm.Load(l.base, "")
		}
		s.ctx = ctx
	}
	return s.ctx
}

// loaded reports whether the session's data is in memory: a cookie named
// the session, or something used it.
func (s *Session) loaded() bool {
	if s.lazy == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx != nil
}

// FromContext returns the session of the request whose context is ctx, or
// nil when the request has none (sessions off, or disabled for it).
func FromContext(ctx context.Context) *Session {
	s, _ := ctx.Value(ctxKey{}).(*Session)
	return s
}

// Get returns the value stored under key, or nil.
func (s *Session) Get(key string) any { return s.sm.Get(s.data(), key) }

// GetString returns the string stored under key, or "".
func (s *Session) GetString(key string) string { return s.sm.GetString(s.data(), key) }

// Exists reports whether a value is stored under key.
func (s *Session) Exists(key string) bool { return s.sm.Exists(s.data(), key) }

// Keys returns the keys in use, sorted.
func (s *Session) Keys() []string { return s.sm.Keys(s.data()) }

// Put stores val under key; the session is saved when the response starts.
func (s *Session) Put(key string, val any) { s.sm.Put(s.data(), key, val) }

// Remove deletes key.
func (s *Session) Remove(key string) { s.sm.Remove(s.data(), key) }

// Clear deletes every key, keeping the session token.
func (s *Session) Clear() error { return s.sm.Clear(s.data()) }

// Destroy deletes the session from its store and expires the cookie; a
// later Put in the same request starts a new session.
func (s *Session) Destroy() error { return s.sm.Destroy(s.data()) }

// RenewToken moves the session to a new token, keeping its data. Call it
// when privileges change (log in, log out) against session fixation.
func (s *Session) RenewToken() error { return s.sm.RenewToken(s.data()) }

// Handler loads the session named by the request's signed cookie (a new,
// empty one when there is none or its signature is wrong), makes it
// available to next through FromContext, and saves it before the response
// starts, setting the cookie when the session changed, or when it is new
// and the Manager saves uninitialized sessions.
//
// Requests for which Disabled reports true get no session. So do socket
// virtual requests (see socketctx) carrying a "nosession" header, as in
// sails-hook-sockets. A socket's virtual requests carry its handshake's
// Cookie header, so they share the session of the browser that opened it;
// when the handshake had no cookie, the socket layer keeps the first
// Set-Cookie a virtual request answers (SocketCookie gives such a socket
// a session of its own from the start).
func (m *Manager) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m.disabled(r) {
			next.ServeHTTP(w, r)
			return
		}
		if _, ok := socketctx.FromContext(r.Context()); ok && r.Header.Get("nosession") != "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx, token := r.Context(), m.token(r)
		// The session, its writer and a lazy session's token come in one
		// allocation.
		rs := &request{}
		sess := &rs.sess
		sess.sm = m.sm
		fresh := false
		if token == "" {
			// No cookie names a session: there is nothing to read from the
			// store, and the empty session is loaded only if used.
			l := &rs.lazy
			l.base = ctx
			if m.saveUninitialized {
				newTokenInto(&l.raw)
				l.fresh, l.state.mode, fresh = true, loadFresh, true
			}
			sess.lazy = l
		} else {
			st := &loadState{}
			if m.saveUninitialized {
				// A session that was never stored keeps the token its
				// cookie names (see adoptingStore).
				st.mode = loadAdopt
			}
			loaded, err := m.sm.Load(context.WithValue(ctx, loadKey{}, st), token)
			if err == nil && st.retired && m.saveUninitialized {
				// The cookie names a session that ended: start afresh.
				st.mode, st.retired, fresh, token = loadFresh, false, true, newToken()
				loaded, err = m.sm.Load(context.WithValue(ctx, loadKey{}, st), token)
			}
			if err != nil {
				m.onError(w, r, fmt.Errorf("load session: %w", err))
				return
			}
			sess.ctx = loaded
			ctx = loaded
		}
		rs.ctx = sessionCtx{Context: ctx, s: sess}
		r = r.WithContext(&rs.ctx)
		sw := &rs.w
		sw.ResponseWriter, sw.m, sw.r, sw.s, sw.fresh = w, m, r, sess, fresh
		next.ServeHTTP(sw, r)
		sw.save()
	})
}

// token returns the session token of r's cookie, or "" when it has none
// that Unsign accepts.
func (m *Manager) token(r *http.Request) string {
	c, err := r.Cookie(m.name)
	if err != nil {
		return ""
	}
	t, ok := m.signer.unsign(c.Value)
	if !ok {
		return ""
	}
	return t
}

// request is what Handler allocates per request.
type request struct {
	sess Session
	lazy lazyLoad
	w    writer
	ctx  sessionCtx
}

// sessionCtx is the request's context with its session, as
// context.WithValue(ctx, ctxKey{}, s) would give it, without an
// allocation of its own. The context package handles such a context as
// any other: it asks Value and Done for the cancellation it inherits.
type sessionCtx struct {
	context.Context
	s *Session
}

// Value returns the session for ctxKey, and asks the parent otherwise.
func (c *sessionCtx) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c.s
	}
	return c.Context.Value(key)
}

// writer saves the session as the response starts, so that its cookie can
// still be set.
type writer struct {
	http.ResponseWriter
	m      *Manager
	r      *http.Request
	s      *Session
	saved  bool
	failed bool // saving failed and an error response was written instead
	fresh  bool // the session is new, and its cookie is due even unmodified
	// setCookie backs the Set-Cookie header's values when the response
	// has no other.
	setCookie [1]string
}

func (sw *writer) save() {
	if sw.saved {
		return
	}
	sw.saved = true
	if !sw.s.loaded() {
		// Never used: unmodified, under the token made for it.
		if sw.fresh {
			var expiry time.Time // only a persistent cookie says when
			if sw.m.sm.Cookie.Persist {
				expiry = time.Now().Add(sw.m.sm.Lifetime)
			}
			sw.addCookie(cookieLine(sw.m, sw.s.lazy.raw[:], expiry))
		}
		return
	}
	ctx := sw.s.data()
	switch sw.m.sm.Status(ctx) {
	case scs.Modified:
		token, expiry, err := sw.m.sm.Commit(ctx)
		if err != nil {
			sw.failed = true
			sw.m.onError(sw.ResponseWriter, sw.r, fmt.Errorf("save session: %w", err))
			return
		}
		sw.addCookie(cookieLine(sw.m, token, expiry))
	case scs.Destroyed:
		c := sw.m.sm.Cookie
		sw.addCookie((&http.Cookie{
			Name: c.Name, Path: c.Path, Domain: c.Domain, Secure: c.Secure,
			HttpOnly: c.HttpOnly, SameSite: c.SameSite, Partitioned: c.Partitioned,
			Expires: time.Unix(1, 0), MaxAge: -1,
		}).String())
	case scs.Unmodified:
		if sw.fresh {
			sw.addCookie(cookieLine(sw.m, sw.m.sm.Token(ctx), sw.m.sm.Deadline(ctx)))
		}
	}
}

// cookieLine returns the Set-Cookie line naming the session token, which
// expires at expiry: a cookie for the browser session (built in one
// allocation: every cookie-less request gets one) unless the cookie
// persists.
func cookieLine[T string | []byte](m *Manager, token T, expiry time.Time) string {
	c := m.sm.Cookie
	if c.Persist {
		return (&http.Cookie{
			Name: c.Name, Value: m.signer.sign(string(token)), Path: c.Path, Domain: c.Domain, Secure: c.Secure,
			HttpOnly: c.HttpOnly, SameSite: c.SameSite, Partitioned: c.Partitioned,
			Expires: expiry.UTC().Round(time.Second),
			MaxAge:  max(1, int(time.Until(expiry).Round(time.Second).Seconds())),
		}).String()
	}
	var buf [256]byte
	b := append(buf[:0], c.Name...)
	b = append(b, '=')
	b = appendSigned(m.signer, b, token)
	return string(append(b, m.sessionCookieAttrs...))
}

// addCookie adds the Set-Cookie line cookie to the response, with the
// Vary and Cache-Control values express-session adds. The keys are written
// canonical, sparing Header.Add its canonicalising, and a header the
// response does not have yet takes a prepared value.
func (sw *writer) addCookie(cookie string) {
	h := sw.Header()
	if v := h["Set-Cookie"]; v != nil {
		h["Set-Cookie"] = append(v, cookie)
	} else {
		sw.setCookie[0] = cookie
		h["Set-Cookie"] = sw.setCookie[:1:1]
	}
	if v := h["Vary"]; v != nil {
		h["Vary"] = append(v, "Cookie")
	} else {
		h["Vary"] = sw.m.varyCookie
	}
	if v := h["Cache-Control"]; v != nil {
		h["Cache-Control"] = append(v, `no-cache="Set-Cookie"`)
	} else {
		h["Cache-Control"] = sw.m.noCacheCookie
	}
}

func (sw *writer) WriteHeader(status int) {
	sw.save()
	if sw.failed {
		return
	}
	sw.ResponseWriter.WriteHeader(status)
}

func (sw *writer) Write(b []byte) (int, error) {
	sw.save()
	if sw.failed {
		return len(b), nil
	}
	return sw.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer
// (Flush, Hijack, deadlines).
func (sw *writer) Unwrap() http.ResponseWriter { return sw.ResponseWriter }
