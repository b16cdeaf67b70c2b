package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/skiffhq/skiff/internal/browsertest"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/skifftest"
)

// TestChatInTwoBrowsers runs the chat page in two headless Chromium
// browsers, as two people would: each logs in over its socket, a reload
// keeps the login (the socket shares the page's session cookie), the two
// sessions stay apart, and each sees the other's messages live with the
// sender's name, which only a populated created.data (notificationFormat:
// sails) carries.
func TestChatInTwoBrowsers(t *testing.T) {
	chromium := testenv.Chromium(t)
	url := startChat(t)

	ann := browsertest.Start(t, chromium)
	ann.Step(t, "open the page for Ann", chromedp.Navigate(url))
	ann.WaitFor(t, "Ann's login form", `document.body.dataset.state === 'login'`)
	logIn(t, ann, "ann")

	ann.Step(t, "reload Ann's page", chromedp.Reload())
	ann.WaitFor(t, "Ann still logged in after the reload", `document.body.dataset.state !== 'connecting'`)
	if got := browsertest.Eval[string](t, ann, "read the state", `document.body.dataset.state + ' ' + document.getElementById('me').textContent`); got != "chat ann" {
		t.Fatalf("after a reload Ann's page is %q, want \"chat ann\" (the login over the socket did not reach the page's session)", got)
	}

	bob := browsertest.Start(t, chromium)
	bob.Step(t, "open the page for Bob", chromedp.Navigate(url))
	bob.WaitFor(t, "Bob's page to load", `document.body.dataset.state !== 'connecting'`)
	if got := browsertest.Eval[string](t, bob, "read the state", `document.body.dataset.state`); got != "login" {
		t.Fatalf("Bob's page is %q before he logs in, want login (the browsers share a session)", got)
	}
	logIn(t, bob, "bob")

	say(t, ann, "hello Bob")
	bob.WaitFor(t, "Ann's message on Bob's page", `document.querySelectorAll('#messages li').length === 1`)
	say(t, bob, "hi Ann")
	ann.WaitFor(t, "Bob's message on Ann's page", `document.querySelectorAll('#messages li').length === 2`)

	want := []string{"ann: hello Bob", "bob: hi Ann"}
	for _, b := range []*browsertest.Browser{ann, bob} {
		if got := lines(t, b); !slices.Equal(got, want) {
			t.Errorf("messages on a page = %q, want %q", got, want)
		}
	}
	// Ann is still herself after Bob's login, and after another reload.
	ann.Step(t, "reload Ann's page again", chromedp.Reload())
	ann.WaitFor(t, "Ann's page to load", `document.body.dataset.state === 'chat' && document.querySelectorAll('#messages li').length === 2`)
	if got := browsertest.Eval[string](t, ann, "read the user", `document.getElementById('me').textContent`); got != "ann" {
		t.Errorf("Ann's page shows user %q after Bob logged in, want ann", got)
	}

	for _, b := range []*browsertest.Browser{ann, bob} {
		for _, m := range b.Errors() {
			t.Errorf("browser console: %s", m)
		}
	}
	png := browsertest.Run(t, ann, "take a screenshot", chromedp.FullScreenshot(100))
	shot := filepath.Join(t.ArtifactDir(), "chat.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
}

// startChat serves a copy of this app folder (so that its SQLite file lands
// in a temporary folder) with the chat's Go parts, and returns its URL.
func startChat(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"models", "config", "assets"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(sub)); err != nil {
			t.Fatalf("copy the app's %s: %v", sub, err)
		}
	}
	opts := skifftest.Load(t, dir, "")
	c := &chat{}
	c.configure(opts)
	app, srv := skifftest.Serve(t, *opts)
	c.app = app
	return srv.URL + "/"
}

func logIn(t *testing.T, b *browsertest.Browser, name string) {
	t.Helper()
	b.Step(t, "log in as "+name, chromedp.Steps(
		chromedp.SetValue(chromedp.CSS(`#login input[name=username]`), name),
		chromedp.Click(chromedp.CSS(`#login button`)),
	))
	b.WaitFor(t, name+" logged in", `document.body.dataset.state === 'chat' && document.getElementById('me').textContent === '`+name+`'`)
}

func say(t *testing.T, b *browsertest.Browser, text string) {
	t.Helper()
	n := browsertest.Eval[int](t, b, "count the messages", `document.querySelectorAll('#messages li').length`)
	b.Step(t, "say "+text, chromedp.Steps(
		chromedp.SetValue(chromedp.CSS(`#say input[name=text]`), text),
		chromedp.Click(chromedp.CSS(`#say button`)),
	))
	b.WaitFor(t, "the sender's own line", `document.querySelectorAll("#messages li").length === `+strconv.Itoa(n+1))
}

// lines returns the messages a page shows, as "who: text".
func lines(t *testing.T, b *browsertest.Browser) []string {
	t.Helper()
	return browsertest.Eval[[]string](t, b, "read the messages",
		`[...document.querySelectorAll('#messages li')].map(li => li.querySelector('.who').textContent + ' ' + li.querySelector('.text').textContent)`)
}
