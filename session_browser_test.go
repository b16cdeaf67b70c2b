package skiff_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/skiffhq/skiff"
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

	a := startChrome(t, chromium)
	openSessionPage(t, a, srv.URL)
	expectMe(t, a, "browser A before login", "user=")
	chromeRun(t, a, "log in over the socket", chromedp.Evaluate[any](`socketLogin('ann')`))
	chromeWait(t, a, "the login answer", `answers.login !== undefined`)
	if got := chromeEval[string](t, a, `answers.login`); got != "200 welcome" {
		t.Fatalf("socket login answered %q, want 200 welcome", got)
	}
	expectMe(t, a, "browser A after login", "user=ann")
	chromeRun(t, a, "reload", chromedp.Reload())
	chromeWait(t, a, "the socket to connect after the reload", `window.io && io.socket && io.socket.isConnected()`)
	expectMe(t, a, "browser A after the reload", "user=ann")
	if got := chromeEval[string](t, a, `document.cookie`); strings.Contains(got, "sails.sid") {
		t.Errorf("page script sees the session cookie (%q); it must be HttpOnly", got)
	}

	b := startChrome(t, chromium)
	openSessionPage(t, b, srv.URL)
	expectMe(t, b, "browser B while A is logged in", "user=")
	chromeRun(t, b, "log B in as bob", chromedp.Evaluate[any](`socketLogin('bob')`))
	chromeWait(t, b, "B's login answer", `answers.login !== undefined`)
	expectMe(t, b, "browser B after its login", "user=bob")
	expectMe(t, a, "browser A after B's login", "user=ann")
}

// openSessionPage loads the page and waits for its socket.
func openSessionPage(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	chromeRun(t, ctx, "open the page", chromedp.Navigate(url+"/"))
	chromeWait(t, ctx, "the socket to connect", `window.io && io.socket && io.socket.isConnected()`)
}

// expectMe asks GET /me over HTTP (fetch) and over the page's socket.
func expectMe(t *testing.T, ctx context.Context, who, want string) {
	t.Helper()
	chromeRun(t, ctx, who+": ask /me", chromedp.Evaluate[any](`httpMe(); socketMe()`))
	chromeWait(t, ctx, who+": the /me answers", `answers.httpMe !== undefined && answers.socketMe !== undefined`)
	for _, via := range []string{"httpMe", "socketMe"} {
		if got := chromeEval[string](t, ctx, "answers."+via); got != "200 "+want {
			t.Errorf("%s: %s = %q, want %q", who, via, got, "200 "+want)
		}
	}
}

// chromeLimit bounds every wait for the page; it is generous because
// Chromium shares two cores with other work in CI. Nothing is asserted
// about time.
const chromeLimit = 30 * time.Second

// startChrome starts headless Chromium with a profile of its own and
// returns a context for its first tab. Its console is logged when the test
// fails.
func startChrome(t *testing.T, chromium string) context.Context {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox, // root in CI containers
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first Do starts the browser and ties it to ctx: no timeout here.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start %s: %v", chromium, err)
	}
	var (
		mu    sync.Mutex
		lines []string
	)
	done := make(chan struct{})
	messages := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			mu.Lock()
			lines = append(lines, string(m.Type)+": "+strings.TrimSpace(m.Text))
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		<-done
		if t.Failed() {
			mu.Lock()
			defer mu.Unlock()
			t.Logf("browser console:\n  %s", strings.Join(lines, "\n  "))
		}
	})
	return ctx
}

// chromeRun runs one browser action, bounded by chromeLimit.
func chromeRun[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, chromeLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// chromeEval returns the value of a JavaScript expression on the page.
func chromeEval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return chromeRun(t, ctx, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// chromeWait polls the page until the JavaScript expression is true.
func chromeWait(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	chromeRun(t, ctx, "wait for "+what, chromedp.Poll[bool](expr,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(chromeLimit)))
}
