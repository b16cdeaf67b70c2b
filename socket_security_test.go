package skiff_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/sockettest"
)

// TestSecurityOverRealSockets runs sessions, CSRF and policies through real
// socket.io connections (the in-process matrices mark requests as socket
// requests by hand): the handshake cookie carries the HTTP session, a socket
// without one keeps the session its first response set, CSRF applies to
// socket writes, and policies refuse over sockets as over HTTP.
func TestSecurityOverRealSockets(t *testing.T) {
	h := secApp(t, skiff.Options{
		CSRF: true,
		Actions: map[string]http.Handler{
			"auth/login": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				skiff.SessionFrom(r.Context()).Put("userId", 1)
				w.Write([]byte(`"welcome"`))
			}),
		},
		Routes: []skiff.Route{
			{Method: "GET", Path: "/csrfToken", Action: "security/grant-csrf-token"},
			{Method: "POST", Path: "/login", Action: "auth/login", Options: map[string]any{"csrf": false}},
		},
		Policies:    map[string]skiff.Policy{"isLoggedIn": isLoggedIn},
		PolicyRules: map[string]any{"note/create": "isLoggedIn"},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	dial := func(header http.Header) *sockettest.Client {
		t.Helper()
		c, err := sockettest.Dial(ctx, srv.URL, sockettest.Options{EIO: 3, Header: header})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	status := func(c *sockettest.Client, method, path string, data any) (int, string) {
		t.Helper()
		jwr, err := c.Request(ctx, method, path, data)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return jwr.StatusCode, string(jwr.Body)
	}

	// A browser logs in over HTTP and takes a token; its socket shares the
	// session through the handshake cookie.
	b := &browser{t: t, h: h}
	if a := b.send("POST", "/login", "", ""); a.status != 200 {
		t.Fatalf("POST /login = %d %s", a.status, a.body)
	}
	token := b.token()
	sock := dial(http.Header{"Cookie": {b.cookie}})
	if code, body := status(sock, "post", "/note", map[string]any{"text": "no token"}); code != 403 {
		t.Errorf("socket create without a CSRF token = %d %s, want 403", code, body)
	}
	if code, body := status(sock, "post", "/note", map[string]any{"text": "ok", "_csrf": token}); code != 200 {
		t.Errorf("socket create with the session's token = %d %s, want 200", code, body)
	}
	if code, body := status(sock, "get", "/csrfToken", nil); code != 400 || !strings.Contains(body, "socket") {
		t.Errorf("socket GET /csrfToken = %d %s, want 400", code, body)
	}

	// A socket without a cookie: the policy refuses, and the session its
	// own login creates is kept for its later requests.
	anon := dial(nil)
	if code, body := status(anon, "post", "/note", map[string]any{"text": "anon", "_csrf": token}); code != 403 {
		t.Errorf("anonymous socket create = %d %s, want 403", code, body)
	}
	if code, body := status(anon, "post", "/login", nil); code != 200 {
		t.Fatalf("socket POST /login = %d %s", code, body)
	}
	if code, body := status(anon, "post", "/note", map[string]any{"text": "anon", "_csrf": token}); code != 403 {
		t.Errorf("socket create with another session's token = %d %s, want 403", code, body)
	}

	code, body := status(sock, "get", "/note", nil)
	var notes []map[string]any
	if code != 200 || json.Unmarshal([]byte(body), &notes) != nil || len(notes) != 1 {
		t.Errorf("GET /note = %d %s, want the one note created with a token", code, body)
	}
}
