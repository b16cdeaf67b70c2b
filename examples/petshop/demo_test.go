package petshop_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/skifftest"
)

// waitLimit bounds every wait for the page; it is generous because Chromium
// shares two cores with other work in CI. Nothing is asserted about time.
const waitLimit = 30 * time.Second

// TestLiveDemoInChromium loads the demo page (assets/index.html, which
// uses the sails.io.js 1.2.1 browser bundle) in headless Chromium and
// checks that pets created, updated and destroyed by another client (plain
// HTTP requests from the test) show on the page without a reload.
func TestLiveDemoInChromium(t *testing.T) {
	chromium := testenv.Chromium(t)
	srv := startPetshop(t)
	send(t, http.MethodPost, srv.URL+"/pet", `{"name":"Whiskers","species":"cat"}`)

	ctx, console := startBrowser(t, chromium)
	step(t, ctx, "open the demo page", chromedp.Navigate(srv.URL+"/"))
	waitFor(t, ctx, "the socket connected and the list rendered",
		`document.body.dataset.state === 'live' && document.querySelectorAll('#pets li').length === 1`)
	if got := names(t, ctx); !slices.Equal(got, []string{"Whiskers"}) {
		t.Fatalf("pets on the page = %q, want [Whiskers]", got)
	}

	send(t, http.MethodPost, srv.URL+"/pet", `{"name":"Rex","species":"dog"}`)
	waitFor(t, ctx, "Rex to appear", `[...document.querySelectorAll('#pets .name')].some(e => e.textContent === 'Rex')`)
	if got := names(t, ctx); !slices.Equal(got, []string{"Whiskers", "Rex"}) {
		t.Errorf("pets on the page after creating Rex = %q, want [Whiskers Rex]", got)
	}

	send(t, http.MethodPatch, srv.URL+"/pet/1", `{"vaccinated":true}`)
	waitFor(t, ctx, "Whiskers to show as vaccinated", `document.querySelector('#pets li[data-id="1"] .vaccinated') !== null`)

	send(t, http.MethodPost, srv.URL+"/pet", `{"name":"Bubbles","species":"fish"}`)
	waitFor(t, ctx, "Bubbles to appear", `document.querySelectorAll('#pets li').length === 3`)
	send(t, http.MethodDelete, srv.URL+"/pet/3", "")
	waitFor(t, ctx, "Bubbles to go", `document.querySelectorAll('#pets li').length === 2`)
	if got := names(t, ctx); !slices.Equal(got, []string{"Whiskers", "Rex"}) {
		t.Errorf("pets on the page after destroying Bubbles = %q, want [Whiskers Rex]", got)
	}

	// The page's own form posts over its socket and renders the answer (the
	// requester gets no notification of its own create).
	step(t, ctx, "add Tweety with the form", chromedp.Steps(
		chromedp.SetValue(chromedp.CSS(`#add input[name=name]`), "Tweety"),
		chromedp.SetValue(chromedp.CSS(`#add select[name=species]`), "bird"),
		chromedp.Click(chromedp.CSS(`#add button`)),
	))
	waitFor(t, ctx, "Tweety to appear", `document.querySelectorAll('#pets li').length === 3`)
	if got := names(t, ctx); !slices.Equal(got, []string{"Whiskers", "Rex", "Tweety"}) {
		t.Errorf("pets on the page after adding Tweety = %q, want [Whiskers Rex Tweety]", got)
	}

	png := run(t, ctx, "take a screenshot", chromedp.FullScreenshot(100))
	for _, m := range console.errors() {
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

// console collects what the page writes to the browser console.
type console struct {
	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
}

// errors returns the uncaught exceptions and error messages so far (a
// failed resource load, a console.error call).
func (c *console) errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []string
	for _, m := range c.messages {
		if m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleError {
			errs = append(errs, format(m))
		}
	}
	return errs
}

func format(m chromedp.ConsoleMessage) string {
	s := string(m.Type) + ": " + strings.TrimSpace(m.Text)
	if m.URL != "" {
		s += " (" + m.URL + ")"
	}
	return s
}

// startBrowser starts headless Chromium with a fresh profile and returns a
// context for its first tab, and its console, which is logged when the
// test fails.
func startBrowser(t *testing.T, chromium string) (context.Context, *console) {
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
		chromedp.WindowSize(900, 640),
	)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first Do starts the browser and ties it to ctx: no timeout here.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start %s: %v", chromium, err)
	}

	c := &console{}
	done := make(chan struct{})
	messages := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			c.mu.Lock()
			c.messages = append(c.messages, m)
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		<-done
		if t.Failed() {
			c.mu.Lock()
			defer c.mu.Unlock()
			var lines []string
			for _, m := range c.messages {
				lines = append(lines, format(m))
			}
			t.Logf("browser console:\n  %s", strings.Join(lines, "\n  "))
		}
	})
	return ctx, c
}

// run runs one browser action, bounded by waitLimit.
func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func step(t *testing.T, ctx context.Context, what string, a chromedp.Action[chromedp.Void]) {
	t.Helper()
	run(t, ctx, what, a)
}

// waitFor polls the page until the JavaScript expression is true.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	run(t, ctx, "wait for "+what, chromedp.Poll[bool](expr,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(waitLimit)))
}

// names returns the pet names the page shows, in order.
func names(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return run(t, ctx, "read the list",
		chromedp.Evaluate[[]string](`[...document.querySelectorAll('#pets .name')].map(e => e.textContent)`))
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
