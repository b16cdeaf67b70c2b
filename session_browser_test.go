package skiff_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromedp/chromedp"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/internal/browsertest"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/skifftest"
)

// sessionPage is a page as a jQuery + sails.io.js app has it: the socket
// connects as the page loads, carrying the cookie of the page load, and
// the login goes over the socket. Its functions leave their answers in
// window.answers for the test to poll.
const sessionPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>session</title><link rel="icon" href="data:,"></head>
<body>
<script src="/dependencies/sails.io.js"></script>
<script>
  window.answers = {};
  window.socketLogin = function (name) {
    io.socket.post('/login', {name: name}, function (body, jwr) { answers.login = jwr.statusCode + ' ' + body; });
  };
  window.socketMe = function () {
    delete answers.socketMe;
    io.socket.get('/me', function (body, jwr) { answers.socketMe = jwr.statusCode + ' ' + body; });
  };
  window.httpMe = function () {
    delete answers.httpMe;
    fetch('/me', {credentials: 'same-origin'})
      .then(function (r) { return r.text().then(function (t) { answers.httpMe = r.status + ' ' + t; }); })
      .catch(function (e) { answers.httpMe = 'error ' + e; });
  };
</script>
</body>
</html>
`

// TestSessionLoginOverSocketInChromium is the flow of a real Sails app in
// headless Chromium: the page load sets the session cookie, sails.io.js
// connects with it, the login over the socket writes into that session,
// and after a reload the page is still logged in, over HTTP and over its
// new socket. A second browser (its own profile) has a session of its
// own.
func TestSessionLoginOverSocketInChromium(t *testing.T) {
	chromium := testenv.Chromium(t)
	bundle, err := os.ReadFile("examples/petshop/assets/dependencies/sails.io.js")
	if err != nil {
		t.Fatal(err)
	}
	_, srv := skifftest.Serve(t, skiff.Options{
		Actions: map[string]http.Handler{
			// A login as Sails apps write it: req.session.userId = ...,
			// the session token kept.
			"auth/login": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var in struct{ Name string }
				if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" {
					http.Error(w, "name required", http.StatusBadRequest)
					return
				}
				skiff.SessionFrom(r.Context()).Put("user", in.Name)
				fmt.Fprint(w, "welcome")
			}),
			"auth/me": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "user=%s", skiff.SessionFrom(r.Context()).GetString("user"))
			}),
		},
		Routes: []skiff.Route{
			{Method: "POST", Path: "/login", Action: "auth/login"},
			{Method: "GET", Path: "/me", Action: "auth/me"},
		},
		Assets: fstest.MapFS{
			"index.html":               {Data: []byte(sessionPage)},
			"dependencies/sails.io.js": {Data: bundle},
		},
	})

	a := browsertest.Start(t, chromium)
	openSessionPage(t, a, srv.URL)
	expectMe(t, a, "browser A before login", "user=")
	browsertest.Run(t, a, "log in over the socket", chromedp.Evaluate[any](`socketLogin('ann')`))
	a.WaitFor(t, "the login answer", `answers.login !== undefined`)
	if got := browsertest.Eval[string](t, a, "read the login answer", `answers.login`); got != "200 welcome" {
		t.Fatalf("socket login answered %q, want 200 welcome", got)
	}
	expectMe(t, a, "browser A after login", "user=ann")
	browsertest.Run(t, a, "reload", chromedp.Reload())
	a.WaitFor(t, "the socket to connect after the reload", `window.io && io.socket && io.socket.isConnected()`)
	expectMe(t, a, "browser A after the reload", "user=ann")
	if got := browsertest.Eval[string](t, a, "read document.cookie", `document.cookie`); strings.Contains(got, "sails.sid") {
		t.Errorf("page script sees the session cookie (%q); it must be HttpOnly", got)
	}

	b := browsertest.Start(t, chromium)
	openSessionPage(t, b, srv.URL)
	expectMe(t, b, "browser B while A is logged in", "user=")
	browsertest.Run(t, b, "log B in as bob", chromedp.Evaluate[any](`socketLogin('bob')`))
	b.WaitFor(t, "B's login answer", `answers.login !== undefined`)
	expectMe(t, b, "browser B after its login", "user=bob")
	expectMe(t, a, "browser A after B's login", "user=ann")
}

// openSessionPage loads the page and waits for its socket.
func openSessionPage(t *testing.T, b *browsertest.Browser, url string) {
	t.Helper()
	browsertest.Run(t, b, "open the page", chromedp.Navigate(url+"/"))
	b.WaitFor(t, "the socket to connect", `window.io && io.socket && io.socket.isConnected()`)
}

// expectMe asks GET /me over HTTP (fetch) and over the page's socket.
func expectMe(t *testing.T, b *browsertest.Browser, who, want string) {
	t.Helper()
	browsertest.Run(t, b, who+": ask /me", chromedp.Evaluate[any](`httpMe(); socketMe()`))
	b.WaitFor(t, who+": the /me answers", `answers.httpMe !== undefined && answers.socketMe !== undefined`)
	for _, via := range []string{"httpMe", "socketMe"} {
		if got := browsertest.Eval[string](t, b, "read answers."+via, "answers."+via); got != "200 "+want {
			t.Errorf("%s: %s = %q, want %q", who, via, got, "200 "+want)
		}
	}
}
