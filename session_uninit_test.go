package skiff_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/skifftest"
)

// uninitActions are sessionActions plus auth/login-keep, a login that
// keeps the session token, as Sails apps logging in over a socket do
// (the browser could not learn a renewed one).
func uninitActions(t *testing.T) map[string]http.Handler {
	actions := sessionActions(t)
	actions["auth/login-keep"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		skiff.SessionFrom(r.Context()).Put("userId", "ann")
		fmt.Fprint(w, "welcome")
	})
	return actions
}

var uninitRoutes = []skiff.Route{
	{Method: "POST", Path: "/login", Action: "auth/login-keep"},
	{Method: "GET", Path: "/me", Action: "auth/me"},
	{Method: "GET", Path: "/me.js", Action: "auth/me"},
}

// TestSessionCookieOnFirstVisit: as Sails (saveUninitialized: true), a
// request without a session cookie gets one, and the next request that
// carries it gets none; asset-like paths get none; GET /__getcookie sets
// it; saveUninitialized: false sends it only once something is stored.
func TestSessionCookieOnFirstVisit(t *testing.T) {
	h := secApp(t, skiff.Options{Actions: uninitActions(t), Routes: uninitRoutes})
	web := &browser{t: t, h: h}
	a := web.send("GET", "/me", "", "")
	if a.body != "user= theme=" || !strings.HasPrefix(web.cookie, "sails.sid=s%3A") {
		t.Fatalf("first GET /me = %q, cookie %q; want an empty session and a signed sails.sid", a.body, web.cookie)
	}
	if set := a.header.Get("Set-Cookie"); !strings.Contains(set, "HttpOnly") || !strings.Contains(set, "Path=/") {
		t.Errorf("Set-Cookie = %q, want HttpOnly and Path=/", set)
	}
	first := web.cookie
	if a := web.send("GET", "/me", "", ""); len(a.header.Values("Set-Cookie")) != 0 {
		t.Errorf("GET /me with the cookie set %q, want no cookie", a.header.Values("Set-Cookie"))
	}
	web.send("POST", "/login", "", "")
	if web.cookie != first {
		t.Errorf("login changed the cookie %q to %q, want it kept", first, web.cookie)
	}
	if a := web.send("GET", "/me", "", ""); a.body != "user=ann theme=" {
		t.Errorf("GET /me after login = %q, want user=ann", a.body)
	}
	// Two cookie-less clients get two sessions.
	if other := (&browser{t: t, h: h}); other.send("GET", "/me", "", "").body != "user= theme=" || other.cookie == first || other.cookie == "" {
		t.Errorf("another client got cookie %q, want a session of its own", other.cookie)
	}
	asset := &browser{t: t, h: h}
	if a := asset.send("GET", "/me.js", "", ""); a.body != "no session" || asset.cookie != "" {
		t.Errorf("GET /me.js = %q, cookie %q; want no session, no cookie", a.body, asset.cookie)
	}
	gc := &browser{t: t, h: h}
	if a := gc.send("GET", "/__getcookie", "", ""); a.body != "_sailsIoJSConnect();" || gc.cookie == "" {
		t.Errorf("GET /__getcookie = %q, cookie %q; want _sailsIoJSConnect(); and a session cookie", a.body, gc.cookie)
	}

	off := false
	h = secApp(t, skiff.Options{Actions: uninitActions(t), Routes: uninitRoutes, Session: skiff.SessionSettings{SaveUninitialized: &off}})
	web = &browser{t: t, h: h}
	for _, path := range []string{"/me", "/__getcookie"} {
		if web.send("GET", path, "", ""); web.cookie != "" {
			t.Errorf("saveUninitialized false: GET %s set the cookie %q, want none", path, web.cookie)
		}
	}
	if web.send("POST", "/login", "", ""); web.cookie == "" {
		t.Error("saveUninitialized false: login set no cookie")
	}
}

// TestSessionSocketAdoptsFirstVisitCookie is the login over a socket of a
// Sails app: the page load sets the cookie, the socket's handshake carries
// it, the login over the socket writes into that session, and the next
// page load sees it. A socket whose handshake has no cookie gets a session
// of its own for all its requests.
func TestSessionSocketAdoptsFirstVisitCookie(t *testing.T) {
	h := secApp(t, skiff.Options{Actions: uninitActions(t), Routes: uninitRoutes})
	web := &browser{t: t, h: h}
	web.send("GET", "/", "", "")
	if web.cookie == "" {
		t.Fatal("GET / set no session cookie")
	}
	sock := &browser{t: t, h: h, cookie: web.cookie, socket: true}
	if a := sock.send("GET", "/me", "", ""); a.body != "user= theme=" {
		t.Errorf("socket GET /me before login = %q, want an empty session", a.body)
	}
	if a := sock.send("POST", "/login", "", ""); a.body != "welcome" {
		t.Fatalf("socket POST /login = %d %q", a.status, a.body)
	}
	if a := web.send("GET", "/me", "", ""); a.body != "user=ann theme=" {
		t.Errorf("page reload after the socket login: GET /me = %q, want user=ann", a.body)
	}
	if a := sock.send("GET", "/me", "", ""); a.body != "user=ann theme=" {
		t.Errorf("socket GET /me after login = %q, want user=ann", a.body)
	}

	// A cookie-less handshake: one session for the socket's requests, not
	// shared with other sockets or with cookie-less HTTP requests.
	lone := &browser{t: t, h: h, socket: true}
	lone.send("GET", "/me?theme=dark", "", "")
	if a := lone.send("GET", "/me", "", ""); a.body != "user= theme=dark" {
		t.Errorf("cookie-less socket's second request = %q, want its session (theme=dark)", a.body)
	}
	for name, b := range map[string]*browser{
		"another cookie-less socket": {t: t, h: h, socket: true},
		"a cookie-less page":         {t: t, h: h},
	} {
		if a := b.send("GET", "/me", "", ""); a.body != "user= theme=" {
			t.Errorf("%s: GET /me = %q, want an empty session", name, a.body)
		}
	}
	nosession := &browser{t: t, h: h, socket: true, handshake: http.Header{"Nosession": {"true"}}}
	if a := nosession.send("GET", "/me", "", ""); a.body != "no session" {
		t.Errorf("nosession socket: GET /me = %q, want no session", a.body)
	}
}

// TestSaveUninitializedFromConfig reads session.saveUninitialized.
func TestSaveUninitializedFromConfig(t *testing.T) {
	db := "SKIFF_DATASTORES__DEFAULT__URL=" + t.TempDir() + "/db"
	if got := skifftest.Load(t, "testdata/apps/basic", "", db).Session.SaveUninitialized; got != nil {
		t.Errorf("SaveUninitialized unset = %v, want nil (true)", *got)
	}
	opts := skifftest.Load(t, "testdata/apps/basic", "", db, "SKIFF_SESSION__SAVEUNINITIALIZED=false")
	if got := opts.Session.SaveUninitialized; got == nil || *got {
		t.Errorf("SaveUninitialized with SKIFF_SESSION__SAVEUNINITIALIZED=false = %v, want false", got)
	}
}
