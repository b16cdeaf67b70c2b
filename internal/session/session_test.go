package session_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/redis/go-redis/v9"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/internal/session"
	"github.com/skiffhq/skiff/internal/session/redisstore"
	"github.com/skiffhq/skiff/internal/socketctx"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/settings"
)

func TestSignMatchesCookieSignature(t *testing.T) {
	// The cookie-signature package's own example, as express-session
	// prefixes and encodes it.
	got := session.Sign("hello", "tobiiscool")
	want := "s%3Ahello.DGDUkGlIkCzPz%2BC0B064FNgHdEjox7ch8tOBGslZ5QI"
	if got != want {
		t.Errorf("Sign(hello, tobiiscool) = %q, want %q", got, want)
	}
	if tok, ok := session.Unsign(want, "tobiiscool"); !ok || tok != "hello" {
		t.Errorf("Unsign(%q) = %q, %v; want hello, true", want, tok, ok)
	}
}

func TestUnsignRefuses(t *testing.T) {
	good := session.Sign("abc", "secret")
	for _, v := range []string{
		"", "abc", "s%3Aabc", "s:abc.", "s:.sig", strings.Replace(good, "abc", "abd", 1),
		session.Sign("abc", "other"), "%zz", strings.Repeat("a", 2000), good[:len(good)-1],
	} {
		if tok, ok := session.Unsign(v, "secret"); ok {
			t.Errorf("Unsign(%q) = %q, true; want a refusal", v, tok)
		}
	}
}

// stores opens each session store the tests run against.
var stores = []struct {
	name string
	open func(t *testing.T) scs.Store
}{
	{"memory", func(t *testing.T) scs.Store {
		return session.NewMemoryStore()
	}},
	{"sqlite", func(t *testing.T) scs.Store {
		db, err := sqlite.Open(t.Context(), datastore.Config{Name: "default", URL: ":memory:"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return datastoreStore(t, db)
	}},
	{"postgres", func(t *testing.T) scs.Store {
		db, err := postgres.Open(t.Context(), datastore.Config{Name: "default", URL: testenv.Postgres(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return datastoreStore(t, db)
	}},
	{"redis", func(t *testing.T) scs.Store {
		url := "redis://" + testenv.Redis(t) + "/0"
		prefix := "skiff_test_" + randomHex(6) + ":"
		s, err := redisstore.Open(t.Context(), url, prefix)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			defer s.Close()
			opts, _ := redis.ParseURL(url)
			rc := redis.NewClient(opts)
			defer rc.Close()
			ctx := context.Background()
			keys, err := rc.Keys(ctx, prefix+"*").Result()
			if err == nil && len(keys) > 0 {
				rc.Del(ctx, keys...)
			}
		})
		return s
	}},
}

func datastoreStore(t *testing.T, db datastore.Adapter) scs.Store {
	t.Helper()
	s, err := session.NewDatastoreStore(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	// Opening it again finds the table in place.
	if _, err := session.NewDatastoreStore(t.Context(), db); err != nil {
		t.Fatalf("NewDatastoreStore a second time: %v", err)
	}
	return s
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// app is a handler behind the session middleware: /login stores the user
// id from ?id=, /me answers it, /logout destroys the session.
func app(t *testing.T, store scs.Store) http.Handler {
	t.Helper()
	m, err := session.New(session.Config{Session: settings.Session{Secret: "s3cret", Store: store, SaveUninitialized: new(false)}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		s := session.FromContext(r.Context())
		if err := s.RenewToken(); err != nil {
			t.Error(err)
		}
		s.Put("userId", r.URL.Query().Get("id"))
		fmt.Fprint(w, "ok")
	})
	me := func(w http.ResponseWriter, r *http.Request) {
		s := session.FromContext(r.Context())
		if s == nil {
			fmt.Fprint(w, "no session")
			return
		}
		fmt.Fprint(w, s.GetString("userId"))
	}
	mux.HandleFunc("/me", me)
	mux.HandleFunc("/me.js", me)
	mux.HandleFunc("/logout", func(w http.ResponseWriter, r *http.Request) {
		if err := session.FromContext(r.Context()).Destroy(); err != nil {
			t.Error(err)
		}
	})
	return m.Handler(mux)
}

func call(t *testing.T, h http.Handler, target, cookie string, socket bool, header ...string) (string, *http.Cookie) {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	if socket {
		r = r.WithContext(socketctx.NewContext(r.Context(), "sock1"))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Result().Body)
	var set *http.Cookie
	for _, c := range w.Result().Cookies() {
		if c.Name == session.DefaultName {
			set = c
		}
	}
	return string(body), set
}

func TestSessionLifecycle(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := app(t, st.open(t))
			if body, c := call(t, h, "/me", "", false); body != "" || c != nil {
				t.Errorf("GET /me without cookie = %q, cookie %v; want empty and no cookie", body, c)
			}
			_, c := call(t, h, "/login?id=7", "", false)
			if c == nil {
				t.Fatal("GET /login set no session cookie")
			}
			if !c.HttpOnly || c.Path != "/" || c.MaxAge != 0 || !strings.HasPrefix(c.Value, "s%3A") {
				t.Errorf("session cookie = %s; want HttpOnly, Path=/, no Max-Age, an s%%3A-signed value", c)
			}
			cookie := c.Name + "=" + c.Value
			if body, c2 := call(t, h, "/me", cookie, false); body != "7" || c2 != nil {
				t.Errorf("GET /me with the cookie = %q (cookie %v); want 7 and no new cookie", body, c2)
			}
			// A socket virtual request carries the handshake's cookie.
			if body, _ := call(t, h, "/me", cookie, true); body != "7" {
				t.Errorf("socket GET /me with the cookie = %q, want 7", body)
			}
			if body, _ := call(t, h, "/me", cookie, true, "nosession", "true"); body != "no session" {
				t.Errorf("socket GET /me with nosession = %q, want no session", body)
			}
			tampered := strings.Replace(cookie, "s%3A", "s%3AX", 1)
			if body, _ := call(t, h, "/me", tampered, false); body != "" {
				t.Errorf("GET /me with a tampered cookie = %q, want an empty session", body)
			}
			if body, _ := call(t, h, "/me.js", cookie, false); body != "no session" {
				t.Errorf("GET /me.js = %q, want no session (asset-like path)", body)
			}
			_, c = call(t, h, "/logout", cookie, false)
			if c == nil || c.MaxAge >= 0 {
				t.Errorf("GET /logout cookie = %v, want an expired cookie", c)
			}
			if body, _ := call(t, h, "/me", cookie, false); body != "" {
				t.Errorf("GET /me after logout = %q, want an empty session", body)
			}
		})
	}
}

func TestMaxAgeMakesThePersistentCookie(t *testing.T) {
	m, err := session.New(session.Config{Session: settings.Session{Secret: "x", Store: session.NewMemoryStore(), MaxAge: 3600e9, Secure: true, SameSite: http.SameSiteLaxMode, Name: "app.sid", SaveUninitialized: new(false)}})
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session.FromContext(r.Context()).Put("a", 1)
		w.WriteHeader(201)
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/", nil))
	set := w.Header().Get("Set-Cookie")
	for _, want := range []string{"app.sid=s%3A", "Max-Age=3600", "Expires=", "Secure", "SameSite=Lax", "HttpOnly"} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie = %q, want it to contain %q", set, want)
		}
	}
	if w.Code != 201 {
		t.Errorf("status = %d, want the handler's 201", w.Code)
	}
}

func TestNewRefusesMissingSecret(t *testing.T) {
	if _, err := session.New(session.Config{Session: settings.Session{Store: session.NewMemoryStore(), SaveUninitialized: new(false)}}); err == nil {
		t.Error("New without a secret succeeded")
	}
}

// countingStore counts what reaches a store.
type countingStore struct {
	scs.Store
	finds, commits, deletes int
}

func (c *countingStore) Find(token string) ([]byte, bool, error) {
	c.finds++
	return c.Store.Find(token)
}

func (c *countingStore) Commit(token string, b []byte, expiry time.Time) error {
	c.commits++
	return c.Store.Commit(token, b, expiry)
}

func (c *countingStore) Delete(token string) error {
	c.deletes++
	return c.Store.Delete(token)
}

// uninitApp is app with SaveUninitialized, and /put, which stores ?id=
// without renewing the token, as a login over a socket must.
func uninitApp(t *testing.T, store scs.Store, maxAge time.Duration) http.Handler {
	t.Helper()
	m, err := session.New(session.Config{Session: settings.Session{Secret: "s3cret", Store: store, SaveUninitialized: new(true), MaxAge: maxAge}})
	if err != nil {
		t.Fatal(err)
	}
	inner := http.NewServeMux()
	inner.HandleFunc("/put", func(w http.ResponseWriter, r *http.Request) {
		session.FromContext(r.Context()).Put("userId", r.URL.Query().Get("id"))
	})
	inner.HandleFunc("/me", func(w http.ResponseWriter, r *http.Request) {
		s := session.FromContext(r.Context())
		if s == nil {
			fmt.Fprint(w, "no session")
			return
		}
		fmt.Fprint(w, s.GetString("userId"))
	})
	inner.HandleFunc("/me.js", func(w http.ResponseWriter, r *http.Request) {
		if session.FromContext(r.Context()) == nil {
			fmt.Fprint(w, "no session")
		}
	})
	inner.HandleFunc("/logout", func(w http.ResponseWriter, r *http.Request) {
		if err := session.FromContext(r.Context()).Destroy(); err != nil {
			t.Error(err)
		}
	})
	return m.Handler(inner)
}

func TestSaveUninitializedCookieOnFirstVisit(t *testing.T) {
	store := &countingStore{Store: session.NewMemoryStore()}
	h := uninitApp(t, store, 0)
	body, c := call(t, h, "/me", "", false)
	if c == nil || body != "" {
		t.Fatalf("GET /me without cookie = %q, cookie %v; want an empty session and a cookie", body, c)
	}
	if !c.HttpOnly || c.Path != "/" || c.MaxAge != 0 || !strings.HasPrefix(c.Value, "s%3A") {
		t.Errorf("session cookie = %s; want HttpOnly, Path=/, no Max-Age, an s%%3A-signed value", c)
	}
	if _, ok := session.Unsign(c.Value, "s3cret"); !ok {
		t.Errorf("cookie %q is not signed with the secret", c.Value)
	}
	if store.finds+store.commits+store.deletes != 0 {
		t.Errorf("a cookie-less request reached the store: %+v", store)
	}
	cookie := c.Name + "=" + c.Value

	// The cookie of a session never written: one store miss, no write, no
	// new cookie.
	if body, c2 := call(t, h, "/me", cookie, false); body != "" || c2 != nil {
		t.Errorf("GET /me with the fresh cookie = %q, cookie %v; want empty and no cookie", body, c2)
	}
	if store.finds != 1 || store.commits != 0 {
		t.Errorf("store after a request with the fresh cookie: %d finds, %d commits; want 1, 0", store.finds, store.commits)
	}

	// Writing stores the session under the token the cookie names.
	if _, c2 := call(t, h, "/put?id=7", cookie, true); c2 == nil || c2.Value != c.Value {
		t.Errorf("socket GET /put cookie = %v, want the same cookie %q", c2, c.Value)
	}
	if store.commits != 1 {
		t.Errorf("store commits after /put = %d, want 1", store.commits)
	}
	if body, c2 := call(t, h, "/me", cookie, false); body != "7" || c2 != nil {
		t.Errorf("GET /me after /put = %q, cookie %v; want 7 and no cookie", body, c2)
	}

	// Two cookie-less clients get two sessions.
	_, other := call(t, h, "/me", "", false)
	if other == nil || other.Value == c.Value {
		t.Fatalf("second cookie-less client got cookie %v, want a new one", other)
	}
	if body, _ := call(t, h, "/me", other.Name+"="+other.Value, false); body != "" {
		t.Errorf("the other client's session = %q, want empty", body)
	}

	// A cookie with a bad signature is replaced.
	tampered := strings.Replace(cookie, "s%3A", "s%3AX", 1)
	if body, c2 := call(t, h, "/me", tampered, false); body != "" || c2 == nil || c2.Value == c.Value {
		t.Errorf("GET /me with a tampered cookie = %q, cookie %v; want empty and a new cookie", body, c2)
	}
	// Opting out: asset-like paths, socket requests with nosession.
	if body, c2 := call(t, h, "/me.js", "", false); body != "no session" || c2 != nil {
		t.Errorf("GET /me.js = %q, cookie %v; want no session and no cookie", body, c2)
	}
	if body, c2 := call(t, h, "/me", "", true, "nosession", "true"); body != "no session" || c2 != nil {
		t.Errorf("socket GET /me with nosession = %q, cookie %v; want no session and no cookie", body, c2)
	}

	_, c2 := call(t, h, "/logout", cookie, false)
	if c2 == nil || c2.MaxAge >= 0 {
		t.Errorf("GET /logout cookie = %v, want an expired cookie", c2)
	}
	if body, _ := call(t, h, "/me", cookie, false); body != "" {
		t.Errorf("GET /me after logout = %q, want an empty session", body)
	}
}

func TestSaveUninitializedStores(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := uninitApp(t, st.open(t), 0)
			_, c := call(t, h, "/me", "", false)
			if c == nil {
				t.Fatal("GET /me without cookie set no cookie")
			}
			cookie := c.Name + "=" + c.Value
			if body, c2 := call(t, h, "/me", cookie, false); body != "" || c2 != nil {
				t.Errorf("GET /me with the fresh cookie = %q, cookie %v; want empty, no cookie", body, c2)
			}
			call(t, h, "/put?id=9", cookie, false)
			if body, _ := call(t, h, "/me", cookie, false); body != "9" {
				t.Errorf("GET /me after /put = %q, want 9", body)
			}
		})
	}
}

func TestSaveUninitializedMaxAge(t *testing.T) {
	h := uninitApp(t, session.NewMemoryStore(), time.Hour)
	_, c := call(t, h, "/me", "", false)
	if c == nil || c.MaxAge != 3600 || c.Expires.IsZero() {
		t.Errorf("fresh cookie with maxAge = %v, want Max-Age=3600 and Expires", c)
	}
}

func TestSaveUninitializedOffSetsNoCookie(t *testing.T) {
	h := app(t, session.NewMemoryStore())
	if body, c := call(t, h, "/me", "", false); body != "" || c != nil {
		t.Errorf("GET /me without cookie = %q, cookie %v; want empty and no cookie", body, c)
	}
}

func TestSocketCookie(t *testing.T) {
	m, err := session.New(session.Config{Session: settings.Session{Secret: "s3cret", Store: session.NewMemoryStore(), SaveUninitialized: new(true)}})
	if err != nil {
		t.Fatal(err)
	}
	hs := func(target, cookie string) *http.Request {
		r := httptest.NewRequest("GET", target, nil)
		if cookie != "" {
			r.Header.Set("Cookie", cookie)
		}
		return r
	}
	sid := func(header string) (string, bool) {
		r := hs("/", header)
		c, err := r.Cookie(session.DefaultName)
		if err != nil {
			return "", false
		}
		return session.Unsign(c.Value, "s3cret")
	}
	got := m.SocketCookie(hs("/socket.io/?EIO=4", ""))
	tok, ok := sid(got)
	if !ok {
		t.Fatalf("SocketCookie without a cookie = %q, want a signed session cookie", got)
	}
	if again, _ := sid(m.SocketCookie(hs("/socket.io/", ""))); again == tok {
		t.Error("two cookie-less handshakes got the same session")
	}
	valid := "a=1; sails.sid=" + session.Sign("tok", "s3cret")
	if got := m.SocketCookie(hs("/socket.io/", valid)); got != valid {
		t.Errorf("SocketCookie with a valid cookie = %q, want it unchanged", got)
	}
	bad := "a=1; sails.sid=" + session.Sign("tok", "other") + "; b=2"
	got = m.SocketCookie(hs("/socket.io/", bad))
	if tok, ok := sid(got); !ok || tok == "tok" || !strings.HasPrefix(got, "a=1; b=2; sails.sid=") {
		t.Errorf("SocketCookie with a badly signed cookie = %q, want the others kept and a fresh session", got)
	}
	if got := m.SocketCookie(hs("/socket.io/?nosession=true", "a=1")); got != "a=1" {
		t.Errorf("SocketCookie with ?nosession = %q, want the handshake's", got)
	}
	r := hs("/socket.io/", "")
	r.Header.Set("nosession", "true")
	if got := m.SocketCookie(r); got != "" {
		t.Errorf("SocketCookie with a nosession header = %q, want none", got)
	}

	off, err := session.New(session.Config{Session: settings.Session{Secret: "s3cret", Store: session.NewMemoryStore(), SaveUninitialized: new(false)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := off.SocketCookie(hs("/socket.io/", "a=1")); got != "a=1" {
		t.Errorf("SocketCookie without SaveUninitialized = %q, want the handshake's", got)
	}
}

// BenchmarkCookielessRequest is what a request without a cookie costs the
// session layer: with SaveUninitialized, a token, a signature and a
// Set-Cookie header, never the store.
func BenchmarkCookielessRequest(b *testing.B) {
	for _, save := range []bool{false, true} {
		b.Run(fmt.Sprintf("saveUninitialized=%t", save), func(b *testing.B) {
			m, err := session.New(session.Config{Session: settings.Session{Secret: "s3cret", Store: session.NewMemoryStore(), SaveUninitialized: new(save)}})
			if err != nil {
				b.Fatal(err)
			}
			h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
			r := httptest.NewRequest("GET", "/user", nil)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}

// TestEndedSessionTokenNotAdopted: a logout over a socket cannot expire the
// browser's cookie, so the token it names must not name a session again, or
// a later login would reach whoever had copied that cookie.
func TestEndedSessionTokenNotAdopted(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := uninitApp(t, st.open(t), 0)
			_, c := call(t, h, "/me", "", false)
			if c == nil {
				t.Fatal("GET /me without cookie set no cookie")
			}
			old := c.Name + "=" + c.Value
			call(t, h, "/put?id=5", old, true)
			call(t, h, "/logout", old, true) // over the socket: the browser keeps old

			body, c2 := call(t, h, "/me", old, false)
			if body != "" || c2 == nil || c2.Value == c.Value {
				t.Fatalf("GET /me with the ended session's cookie = %q, cookie %v; want an empty session under a new cookie", body, c2)
			}
			// A login through the old cookie does not land under it.
			call(t, h, "/put?id=6", old, true)
			if body, _ := call(t, h, "/me", old, false); body != "" {
				t.Errorf("GET /me with the ended session's cookie after a login through it = %q, want empty", body)
			}
			fresh := c2.Name + "=" + c2.Value
			call(t, h, "/put?id=7", fresh, true)
			if body, _ := call(t, h, "/me", fresh, false); body != "7" {
				t.Errorf("GET /me with the new cookie after a login = %q, want 7", body)
			}
		})
	}
}

// TestSameSiteDefaultsToLax: a cookie without the setting says
// SameSite=Lax (issue 19); SameSiteDefaultMode (config sameSite: false)
// writes no attribute, and an explicit mode is kept.
func TestSameSiteDefaultsToLax(t *testing.T) {
	for _, tc := range []struct {
		mode http.SameSite
		want string
	}{{0, "SameSite=Lax"}, {http.SameSiteDefaultMode, ""}, {http.SameSiteStrictMode, "SameSite=Strict"}} {
		m, err := session.New(session.Config{Session: settings.Session{Secret: "x", Store: session.NewMemoryStore(), SameSite: tc.mode, SaveUninitialized: new(false)}})
		if err != nil {
			t.Fatal(err)
		}
		h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			session.FromContext(r.Context()).Put("a", 1)
		}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/", nil))
		set := w.Header().Get("Set-Cookie")
		if got := strings.Contains(set, "SameSite"); tc.want == "" && got || tc.want != "" && !strings.Contains(set, tc.want) {
			t.Errorf("SameSite %d: Set-Cookie = %q, want %q", tc.mode, set, tc.want)
		}
	}
}

// TestHandlerContext checks the context a cookie-less request's handler
// gets: the session, the parent's values, and the parent's cancellation,
// which a context derived from it inherits.
func TestHandlerContext(t *testing.T) {
	m, err := session.New(session.Config{Session: settings.Session{Secret: "s3cret", Store: session.NewMemoryStore(), SaveUninitialized: new(true)}})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	var child context.Context
	var cancelChild context.CancelFunc
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if session.FromContext(r.Context()) == nil {
			t.Error("no session in the handler's context")
		}
		if got := r.Context().Value(key{}); got != "v" {
			t.Errorf("parent's value = %v", got)
		}
		child, cancelChild = context.WithCancel(r.Context())
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil).WithContext(parent))
	cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a context derived from the handler's was not cancelled with the request's")
	}
	cancelChild()
}

// BenchmarkHandlerFirstVisit measures the session layer on a request
// without a cookie whose handler leaves the session alone: the first-visit
// cookie is made, signed and set.
func BenchmarkHandlerFirstVisit(b *testing.B) {
	m, err := session.New(session.Config{Session: settings.Session{Secret: "s3cret", Store: session.NewMemoryStore(), SaveUninitialized: new(true)}})
	if err != nil {
		b.Fatal(err)
	}
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	req := httptest.NewRequest(http.MethodGet, "/pet/1", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		clear(w.HeaderMap)
		h.ServeHTTP(w, req)
	}
}
