// Package browsertest drives headless Chromium for the browser tests of the
// example apps: a fresh profile per browser (so two browsers share no
// cookies), the page's console kept and logged when the test fails, and
// every wait bounded so a broken page fails instead of hanging.
package browsertest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// WaitLimit bounds every wait for a page; it is generous because Chromium
// shares two cores with other work in CI. Nothing is asserted about time.
const WaitLimit = 30 * time.Second

// Browser is one headless Chromium with its own profile, and its first tab.
type Browser struct {
	// Ctx is the context of the browser's first tab, for chromedp.Run.
	Ctx context.Context

	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
}

// Start starts the Chromium binary at path (testenv.Chromium) with a fresh
// profile. It is stopped when t ends; its console is logged if t failed.
func Start(t testing.TB, path string) *Browser {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // root in CI containers
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// Without these, Chromium keeps trying to reach Google's hosts,
		// which this closed network refuses.
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
		t.Fatalf("start %s: %v", path, err)
	}
	b := &Browser{Ctx: ctx}
	done := make(chan struct{})
	messages := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.messages = append(b.messages, m)
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		<-done
		if t.Failed() {
			b.mu.Lock()
			defer b.mu.Unlock()
			var lines []string
			for _, m := range b.messages {
				lines = append(lines, format(m))
			}
			t.Logf("browser console:\n  %s", strings.Join(lines, "\n  "))
		}
	})
	return b
}

// Errors returns the uncaught exceptions and error messages the page has
// logged so far (a failed resource load, a console.error call).
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []string
	for _, m := range b.messages {
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

// Run runs one browser action, bounded by WaitLimit, and fails t with what
// when it fails.
func Run[T any](t testing.TB, b *Browser, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, WaitLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// Step runs an action that yields nothing.
func (b *Browser) Step(t testing.TB, what string, a chromedp.Action[chromedp.Void]) {
	t.Helper()
	Run(t, b, what, a)
}

// WaitFor polls the page until the JavaScript expression is true.
func (b *Browser) WaitFor(t testing.TB, what, expr string) {
	t.Helper()
	Run(t, b, "wait for "+what, chromedp.Poll[bool](expr,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(WaitLimit)))
}

// Eval evaluates a JavaScript expression in the page.
func Eval[T any](t testing.TB, b *Browser, what, expr string) T {
	t.Helper()
	return Run(t, b, what, chromedp.Evaluate[T](expr))
}
