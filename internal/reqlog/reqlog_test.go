package reqlog_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/reqlog"
	"github.com/skiffhq/skiff/internal/socketctx"
)

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"abc-123", true},
		{"", false},
		{strings.Repeat("a", reqlog.MaxIDLength), true},
		{strings.Repeat("a", reqlog.MaxIDLength+1), false},
		{"has space", false},
		{"line\nbreak", false},
		{"tab\t", false},
		{"é", false},
	} {
		if got := reqlog.ValidID(tc.id); got != tc.want {
			t.Errorf("ValidID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// lines decodes the JSON log lines in b.
func lines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestWrapLogsOneLinePerRequest(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	h := reqlog.New(log, slog.LevelInfo).Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := reqlog.ID(w); got == "" {
			t.Error("ID(w) inside the handler is empty")
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, "hello")
	}))

	// A client id is kept and echoed.
	req := httptest.NewRequest(http.MethodPost, "/pet?x=1", nil)
	req.Header.Set(reqlog.Header, "client-id-1")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if got := w.Header().Get(reqlog.Header); got != "client-id-1" {
		t.Errorf("response %s = %q, want client-id-1", reqlog.Header, got)
	}
	// A bad one is replaced.
	req = httptest.NewRequest(http.MethodGet, "/pet", nil)
	req.Header.Set(reqlog.Header, "bad id\n")
	req = req.WithContext(socketctx.NewContext(req.Context(), "sock1"))
	w = httptest.NewRecorder()
	h.ServeHTTP(w, req)
	generated := w.Header().Get(reqlog.Header)
	if generated == "" || generated == "bad id\n" {
		t.Errorf("response %s = %q, want a generated id", reqlog.Header, generated)
	}

	got := lines(t, &buf)
	if len(got) != 2 {
		t.Fatalf("%d log lines, want 2:\n%s", len(got), buf.String())
	}
	first := got[0]
	for k, want := range map[string]any{
		"msg": "request", "level": "INFO", "method": "POST", "path": "/pet", "status": float64(201),
		"bytes": float64(5), "request_id": "client-id-1",
	} {
		if first[k] != want {
			t.Errorf("first line %s = %v, want %v", k, first[k], want)
		}
	}
	if _, ok := first["duration"]; !ok {
		t.Error("first line has no duration")
	}
	if _, ok := first["socket"]; ok {
		t.Error("an HTTP request's line has a socket")
	}
	if got[1]["socket"] != "sock1" || got[1]["request_id"] != generated {
		t.Errorf("virtual request line = %v, want socket sock1 and request_id %s", got[1], generated)
	}
}

func TestWrapLogsAPanicAs500(t *testing.T) {
	var buf bytes.Buffer
	h := reqlog.New(slog.New(slog.NewJSONHandler(&buf, nil)), slog.LevelInfo).Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	}))
	func() {
		defer func() { _ = recover() }()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	}()
	if got := lines(t, &buf); len(got) != 1 || got[0]["status"] != float64(500) {
		t.Errorf("log after a panic = %s, want one line with status 500", buf.String())
	}
}

func TestWrapBelowLevelLogsNothing(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := reqlog.New(log, slog.LevelInfo).Wrap(http.NotFoundHandler())
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if buf.Len() != 0 {
		t.Errorf("log at warn = %q, want nothing", buf.String())
	}
	if w.Header().Get(reqlog.Header) == "" {
		t.Errorf("no %s below the log level", reqlog.Header)
	}
}

// BenchmarkWrap measures what the middleware adds to a request: with the
// log level above info (only the id) and at info (a JSON line).
//
//	go test -run '^$' -bench Wrap -benchmem ./internal/reqlog/
func BenchmarkWrap(b *testing.B) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "[]") })
	b.Run("none", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/pet", nil)
		b.ReportAllocs()
		for b.Loop() {
			next.ServeHTTP(httptest.NewRecorder(), req)
		}
	})
	for _, tc := range []struct {
		name  string
		level slog.Level
		log   *slog.Logger
	}{
		{"warn", slog.LevelWarn, nil},
		{"info", slog.LevelInfo, nil},
		// The text line through slog's handler, and written by TextHandler.
		{"info-slogtext", slog.LevelInfo, slog.New(slog.NewTextHandler(io.Discard, nil))},
		{"info-text", slog.LevelInfo, slog.New(reqlog.NewTextHandler(io.Discard, slog.LevelInfo))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			log := tc.log
			if log == nil {
				log = slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: tc.level}))
			}
			h := reqlog.New(log, slog.LevelInfo).Wrap(next)
			req := httptest.NewRequest(http.MethodGet, "/pet", nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
			}
		})
	}
}
