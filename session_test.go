package skiff_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/mysql"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/internal/testenv"
)

// sessionStore is one session store configuration the session tests run
// against. datastores opens the app's datastores (nil: the note app's
// in-memory SQLite); it is called once per app, and two apps opened from
// it share the store unless it is the memory store.
type sessionStore struct {
	name       string
	session    func(t *testing.T) skiff.SessionSettings
	datastores func(t *testing.T) map[string]datastore.Adapter
	shared     bool // a second app sees the first one's sessions
}

func sessionStores(t *testing.T) []sessionStore {
	sqliteFile := filepath.Join(t.TempDir(), "sessions.db")
	var pgURL, myURL string
	var redisPrefix string
	return []sessionStore{
		{name: "memory", session: func(*testing.T) skiff.SessionSettings { return skiff.SessionSettings{} }},
		{
			name:    "datastore on SQLite",
			session: func(*testing.T) skiff.SessionSettings { return skiff.SessionSettings{Adapter: "datastore"} },
			datastores: func(t *testing.T) map[string]datastore.Adapter {
				db, err := sqlite.Open(context.Background(), datastore.Config{Name: "default", URL: sqliteFile})
				if err != nil {
					t.Fatal(err)
				}
				return map[string]datastore.Adapter{"default": db}
			},
			shared: true,
		},
		{
			name: "datastore on PostgreSQL",
			// The sessions live in a datastore of their own, beside the
			// models' SQLite one.
			session: func(*testing.T) skiff.SessionSettings {
				return skiff.SessionSettings{Adapter: "datastore", Datastore: "sessions"}
			},
			datastores: func(t *testing.T) map[string]datastore.Adapter {
				if pgURL == "" {
					pgURL = testenv.Postgres(t)
				}
				pg, err := postgres.Open(context.Background(), datastore.Config{Name: "sessions", URL: pgURL})
				if err != nil {
					t.Fatal(err)
				}
				db, err := sqlite.Open(context.Background(), datastore.Config{Name: "default", URL: ":memory:"})
				if err != nil {
					t.Fatal(err)
				}
				return map[string]datastore.Adapter{"default": db, "sessions": pg}
			},
			shared: true,
		},
		{
			name: "datastore on MySQL",
			// Sessions and models share one MySQL database.
			session: func(*testing.T) skiff.SessionSettings { return skiff.SessionSettings{Adapter: "datastore"} },
			datastores: func(t *testing.T) map[string]datastore.Adapter {
				if myURL == "" {
					myURL = testenv.MySQLDatabase(t)
				}
				db, err := mysql.Open(context.Background(), datastore.Config{Name: "default", URL: myURL})
				if err != nil {
					t.Fatal(err)
				}
				return map[string]datastore.Adapter{"default": db}
			},
			shared: true,
		},
		{
			name: "redis",
			session: func(t *testing.T) skiff.SessionSettings {
				addr := testenv.Redis(t)
				if redisPrefix == "" {
					b := make([]byte, 6)
					rand.Read(b)
					redisPrefix = "skiff_test_" + hex.EncodeToString(b) + ":"
					t.Cleanup(func() {
						rc := redis.NewClient(&redis.Options{Addr: addr})
						defer rc.Close()
						ctx := context.Background()
						if keys, err := rc.Keys(ctx, redisPrefix+"*").Result(); err == nil && len(keys) > 0 {
							rc.Del(ctx, keys...)
						}
					})
				}
				return skiff.SessionSettings{Adapter: "redis", URL: "redis://" + addr, Prefix: redisPrefix}
			},
			shared: true,
		},
	}
}

// TestSessionStores runs sessions through the real server for every
// store: an HTTP login, a socket opened with its cookie sharing the
// session both ways, sockets logging in and out on their own (the session
// renewed at login follows the socket), nosession sockets, and a second
// app on the same store seeing the sessions (so they really live there).
func TestSessionStores(t *testing.T) {
	for _, st := range sessionStores(t) {
		t.Run(st.name, func(t *testing.T) {
			start := func() *secServer {
				opts := skiff.Options{
					Actions: sessionActions(t),
					Routes: []skiff.Route{
						{Method: "POST", Path: "/login", Action: "auth/login"},
						{Method: "POST", Path: "/logout", Action: "auth/logout"},
						{Method: "GET", Path: "/me", Action: "auth/me"},
						{Method: "GET", Path: "/me.js", Action: "auth/me"},
					},
					Session: st.session(t),
				}
				opts.Session.Secret = "s3cret"
				if st.datastores != nil {
					opts.Datastores = st.datastores(t)
				}
				if err := app.Connect(t.Context(), &opts); err != nil {
					t.Fatal(err)
				}
				return secApp(t, opts)
			}
			h := start()
			web := &browser{t: t, h: h}
			expect := func(who string, b *browser, method, path, want string) {
				t.Helper()
				if a := b.send(method, path, "", ""); a.status != 200 || a.body != want {
					t.Errorf("%s: %s %s = %d %q, want %q", who, method, path, a.status, a.body, want)
				}
			}
			expect("web", web, "GET", "/me", "user= theme=")
			first := web.cookie
			if !strings.HasPrefix(first, "sails.sid=s%3A") {
				t.Errorf("the first request set the cookie %q, want a signed sails.sid (saveUninitialized)", first)
			}
			expect("web", web, "POST", "/login", "welcome")
			if !strings.HasPrefix(web.cookie, "sails.sid=s%3A") || web.cookie == first {
				t.Fatalf("login set the cookie %q, want a new signed sails.sid", web.cookie)
			}
			expect("web", web, "GET", "/me", "user=ann theme=")
			expect("web", web, "GET", "/me.js", "no session") // asset-like paths get no session

			// The socket's requests use the session of its handshake cookie,
			// both ways.
			sock := &browser{t: t, h: h, cookie: web.cookie, socket: true}
			expect("socket with the cookie", sock, "GET", "/me", "user=ann theme=")
			expect("socket with the cookie", sock, "GET", "/me?theme=dark", "user=ann theme=dark")
			expect("web after the socket wrote", web, "GET", "/me", "user=ann theme=dark")
			nosession := &browser{t: t, h: h, cookie: web.cookie, socket: true, handshake: http.Header{"Nosession": {"true"}}}
			expect("nosession socket", nosession, "GET", "/me", "no session")
			tampered := &browser{t: t, h: h, cookie: strings.Replace(web.cookie, "s%3A", "s%3AX", 1)}
			expect("tampered cookie", tampered, "GET", "/me", "user= theme=")

			// Sockets that log in themselves keep the session, renewed token
			// and all, for their later requests; logging out ends it.
			for name, cookie := range map[string]string{"no cookie": "", "another cookie only": "theme=x"} {
				s := &browser{t: t, h: h, cookie: cookie, socket: true}
				expect("socket with "+name, s, "GET", "/me", "user= theme=")
				expect("socket with "+name, s, "POST", "/login", "welcome")
				expect("socket with "+name+" after login", s, "GET", "/me", "user=ann theme=")
				expect("socket with "+name, s, "POST", "/logout", "")
				expect("socket with "+name+" after logout", s, "GET", "/me", "user= theme=")
			}
			// A socket sharing an HTTP session renews it at login and keeps
			// following it (the page's own cookie is then stale, as in Sails).
			other := &browser{t: t, h: h}
			expect("other web", other, "GET", "/me?theme=light", "user= theme=light")
			s := &browser{t: t, h: h, cookie: other.cookie, socket: true}
			expect("socket sharing other's session", s, "POST", "/login", "welcome")
			expect("socket sharing other's session after login", s, "GET", "/me", "user=ann theme=light")

			// Another app on the same store (another instance, or this one
			// restarted) knows the session.
			again := &browser{t: t, h: start(), cookie: web.cookie}
			if st.shared {
				expect("second app", again, "GET", "/me", "user=ann theme=dark")
				// Several instances behind one address: a socket on the
				// second sees the login made over HTTP on the first, and what
				// it writes is seen there.
				sockB := &browser{t: t, h: again.h, cookie: web.cookie, socket: true}
				expect("socket on the second app", sockB, "GET", "/me?theme=blue", "user=ann theme=blue")
				expect("web on the first app after a socket on the second wrote", web, "GET", "/me", "user=ann theme=blue")
			} else {
				expect("second app", again, "GET", "/me", "user= theme=")
			}
		})
	}
}

// TestIsSessionDisabled replaces Sails' default (asset-like paths) with a
// Go function, for HTTP and socket requests alike.
func TestIsSessionDisabled(t *testing.T) {
	h := secApp(t, skiff.Options{
		Actions: sessionActions(t),
		Routes: []skiff.Route{
			{Method: "POST", Path: "/login", Action: "auth/login"},
			{Method: "GET", Path: "/me", Action: "auth/me"},
			{Method: "GET", Path: "/me.js", Action: "auth/me"},
			{Method: "GET", Path: "/api/me", Action: "auth/me"},
		},
		Session: skiff.SessionSettings{IsSessionDisabled: func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }},
	})
	web := &browser{t: t, h: h}
	web.send("POST", "/login", "", "")
	for _, tr := range transports {
		b := &browser{t: t, h: h, cookie: web.cookie, socket: tr.socket}
		for path, want := range map[string]string{"/me": "user=ann theme=", "/me.js": "user=ann theme=", "/api/me": "no session"} {
			if a := b.send("GET", path, "", ""); a.body != want {
				t.Errorf("%s: GET %s = %q, want %q", tr.name, path, a.body, want)
			}
		}
	}
}
