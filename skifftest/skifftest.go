// Package skifftest starts Skiff apps for tests, as net/http/httptest starts
// handlers, and runs corpora of conformance cases against them: embedders
// test their apps with it, and Skiff's own end-to-end tests use it too.
//
// # Conformance cases
//
// RunCorpus runs case files, each a txtar archive
// (golang.org/x/tools/txtar) of requests, the answers they must get and
// the notifications sockets must receive because of them. Every case runs
// twice on a fresh app: over HTTP, and over a socket as sails.io.js virtual
// requests. A case file looks like this:
//
//	Create a user; a socket watching users hears of it.
//
//	app: ../apps/basic
//	sockets: w1
//
//	-- GET /user via w1 --
//	-- 200 --
//	[]
//
//	-- POST /user --
//	{"name": "Ann", "email": "ann@example.com"}
//	-- 200 save ann --
//	{"id": {ann}, "name": "Ann", "createdAt": "$timestamp", "...": ""}
//	-- w1 gets user --
//	{"verb": "created", "id": {ann}, "data": {"name": "Ann", "...": ""}}
//
//	-- GET /user/999 --
//	-- 404 --
//	Not Found
//
// The header (the text before the first section) describes the case; two
// of its lines are read: "app: DIR" names the app folder, relative to the
// case file, and "sockets: NAME..." names the watching sockets, connected
// before the first step. Then come the steps, each a request section,
// its answer section, and any notification sections:
//
//   - "-- METHOD /path?query --" sends a request. Its content is optional
//     "Name: value" header lines ended by a blank line, then the body;
//     a JSON body without a Content-Type header is sent as
//     application/json. "-- METHOD /path via NAME --" sends it from the
//     watching socket NAME instead of the transport under test (which
//     subscribes that socket as a request from a browser's socket would).
//   - "-- STATUS --" is the answer's status; its content is optional
//     header lines (and a blank line), then the expected body: nothing
//     (not checked), JSON (matched structurally, see below) or text
//     (compared exactly). "-- STATUS save NAME --" also keeps the answer's
//     id: from then on {NAME} in a path, header, body or expected body
//     is replaced by it (ids are never assumed: PostgreSQL sequences skip
//     values after failed inserts).
//   - "-- NAME gets EVENT --" is a notification the watching socket NAME
//     must receive because of the step; its content is the expected
//     payload, matched as a body is. After every step each watching socket
//     must have received exactly the notifications listed for it, in
//     order: nothing else.
//
// Lines starting with "#" inside sections are comments. A section whose
// text starts with a blank line has no header lines.
//
// Expected JSON matches the answer when it has the same structure and
// values, with these patterns, all JSON strings:
//
//	"$any"            any value
//	"$absent"         as an object's value: the key must not be there
//	"$number"         any number
//	"$string"         any string
//	"$timestamp"      milliseconds since the epoch (createdAt, updatedAt)
//	"$len N"          an array of N elements
//	"$contains TEXT"  a string containing TEXT
//	"$$..."           the string "$..."
//
// and an object with the key "..." (any value) may hold keys it does not
// list; without it, extra keys are differences.
//
// The two transports differ in known ways, handled by the runner once
// for every case: a request a socket cannot carry (a body that is not
// JSON, a Content-Type other than application/json, a conditional
// request) goes over HTTP in the socket run too, with the HTTP client's
// cookies; a text answer arrives
// over a socket as a JSON string, compared as the text; and the headers
// a socket answer never has (Content-Type, Content-Length, Set-Cookie,
// ETag, Vary, Access-Control-*) are checked over HTTP only. The HTTP
// client keeps cookies, as a browser and a socket do. The watching sockets
// use the in-memory hub's ordering: a notification is queued before the
// answer of the request that caused it, so a cross-instance bus is not
// supported here.
package skifftest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
)

// Load reads the app folder dir as app.Load does, for environment env
// (development when empty) with environ as the process environment
// ("KEY=value" entries, e.g. SKIFF_DATASTORES__DEFAULT__URL). It fails tb
// when the folder does not load. What it opens is the caller's: pass the
// options to New or Serve, which close it with the app, or to app.Close.
func Load(tb testing.TB, dir, env string, environ ...string) *skiff.Options {
	tb.Helper()
	if env == "" {
		env = "development"
	}
	opts, err := app.Load(context.Background(), dir, env, environ)
	if err != nil {
		tb.Fatalf("skifftest: load %s: %v", dir, err)
	}
	return opts
}

// New builds the app of opts and closes it when the test ends. It fails tb
// when the app does not start.
func New(tb testing.TB, opts skiff.Options) *skiff.App {
	tb.Helper()
	app, err := skiff.New(context.Background(), opts)
	if err != nil {
		tb.Fatalf("skifftest: start the app: %v", err)
	}
	tb.Cleanup(func() {
		if err := app.Close(); err != nil {
			tb.Errorf("skifftest: close the app: %v", err)
		}
	})
	return app
}

// Serve builds the app of opts and serves its handler, sockets included, on
// a loopback httptest.Server. When the test ends the app is closed first,
// so its sockets are gone before the server waits for its connections.
func Serve(tb testing.TB, opts skiff.Options) (*skiff.App, *httptest.Server) {
	tb.Helper()
	srv := httptest.NewUnstartedServer(nil)
	// Registered before New's cleanup, so it runs after it.
	tb.Cleanup(srv.Close)
	app := New(tb, opts)
	srv.Config.Handler = app.Handler()
	app.Realtime().Start() // what App.Serve does: run the bus, if any
	srv.Start()
	return app, srv
}
