package petshop_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/skiffhq/skiff/internal/browsertest"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/skifftest"
)

// TestLiveDemoInChromium loads the demo page (assets/index.html, which
// uses the sails.io.js 1.2.1 browser bundle) in headless Chromium and
// checks that pets created, updated and destroyed by another client (plain
// HTTP requests from the test) show on the page without a reload.
func TestLiveDemoInChromium(t *testing.T) {
	chromium := testenv.Chromium(t)
	srv := startPetshop(t)
	send(t, http.MethodPost, srv.URL+"/pet", `{"name":"Whiskers","species":"cat"}`)

	b := browsertest.Start(t, chromium)
	b.Step(t, "open the demo page", chromedp.Navigate(srv.URL+"/"))
	b.WaitFor(t, "the socket connected and the list rendered",
		`document.body.dataset.state === 'live' && document.querySelectorAll('#pets li').length === 1`)
	if got := names(t, b); !slices.Equal(got, []string{"Whiskers"}) {
		t.Fatalf("pets on the page = %q, want [Whiskers]", got)
	}

	send(t, http.MethodPost, srv.URL+"/pet", `{"name":"Rex","species":"dog"}`)
	b.WaitFor(t, "Rex to appear", `[...document.querySelectorAll('#pets .name')].some(e => e.textContent === 'Rex')`)
	if got := names(t, b); !slices.Equal(got, []string{"Whiskers", "Rex"}) {
		t.Errorf("pets on the page after creating Rex = %q, want [Whiskers Rex]", got)
	}

	send(t, http.MethodPatch, srv.URL+"/pet/1", `{"vaccinated":true}`)
	b.WaitFor(t, "Whiskers to show as vaccinated", `document.querySelector('#pets li[data-id="1"] .vaccinated') !== null`)

	send(t, http.MethodPost, srv.URL+"/pet", `{"name":"Bubbles","species":"fish"}`)
	b.WaitFor(t, "Bubbles to appear", `document.querySelectorAll('#pets li').length === 3`)
	send(t, http.MethodDelete, srv.URL+"/pet/3", "")
	b.WaitFor(t, "Bubbles to go", `document.querySelectorAll('#pets li').length === 2`)
	if got := names(t, b); !slices.Equal(got, []string{"Whiskers", "Rex"}) {
		t.Errorf("pets on the page after destroying Bubbles = %q, want [Whiskers Rex]", got)
	}

	// The page's own form posts over its socket and renders the answer (the
	// requester gets no notification of its own create).
	b.Step(t, "add Tweety with the form", chromedp.Steps(
		chromedp.SetValue(chromedp.CSS(`#add input[name=name]`), "Tweety"),
		chromedp.SetValue(chromedp.CSS(`#add select[name=species]`), "bird"),
		chromedp.Click(chromedp.CSS(`#add button`)),
	))
	b.WaitFor(t, "Tweety to appear", `document.querySelectorAll('#pets li').length === 3`)
	if got := names(t, b); !slices.Equal(got, []string{"Whiskers", "Rex", "Tweety"}) {
		t.Errorf("pets on the page after adding Tweety = %q, want [Whiskers Rex Tweety]", got)
	}

	png := browsertest.Run(t, b, "take a screenshot", chromedp.FullScreenshot(100))
	for _, m := range b.Errors() {
		t.Errorf("browser console: %s", m)
	}
	shot := filepath.Join(t.ArtifactDir(), "petshop-live.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
}

// startPetshop serves a copy of this app folder (so that its SQLite file
// lands in a temporary folder) on a loopback httptest server.
func startPetshop(t *testing.T) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"models", "config", "assets"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(sub)); err != nil {
			t.Fatalf("copy the app's %s: %v", sub, err)
		}
	}
	_, srv := skifftest.Serve(t, *skifftest.Load(t, dir, ""))
	return srv
}

// names returns the pet names the page shows, in order.
func names(t *testing.T, b *browsertest.Browser) []string {
	t.Helper()
	return browsertest.Eval[[]string](t, b, "read the list", `[...document.querySelectorAll('#pets .name')].map(e => e.textContent)`)
}

// send makes a plain HTTP request, as a client other than the page, and
// fails the test unless it answers 200.
func send(t *testing.T, method, url, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s = %d %s, want 200", method, url, resp.StatusCode, b)
	}
}
