package reqlog

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/socketctx"
)

// slogLine is the line slog.TextHandler writes for l's record, as Wrap
// formatted it before TextHandler.
func slogLine(t *testing.T, l *requestLine) string {
	t.Helper()
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	rec := slog.NewRecord(l.t, l.level, "request", 0)
	rec.AddAttrs(
		slog.String("method", l.method),
		slog.String("path", l.path),
		slog.Int("status", l.status),
		slog.Duration("duration", l.duration),
		slog.Int64("bytes", l.bytes),
		slog.String("request_id", l.id),
	)
	if l.hasSocket {
		rec.AddAttrs(slog.String("socket", l.socket))
	}
	if err := h.Handle(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestRequestLineMatchesSlog checks the hand-written line against slog's
// text handler, byte for byte, over quoting, unicode, empty values, times
// in several zones and durations of every unit.
func TestRequestLineMatchesSlog(t *testing.T) {
	strs := []string{
		"", "GET", "/product/42", "/a b", "/a=b", `/q"x`, `/back\slash`, "/tab\t", "/nl\n", "/cr\r",
		"/ctl\x01", "/del\x7f", "/é", "/日本語", "/emoji😀", "/nbsp\u00a0", "/zw\u200b", "/bad\xff", "/bad\xc3",
		"/line\u2028sep", "/ogham\u1680", "/combining\u0301", "-", "=", " ", `"`, `\`, "/%20", "/a#b?c",
		"s%3Aabc.def", "0123456789ab-1", strings.Repeat("x", 300),
	}
	zones := []*time.Location{time.UTC, time.FixedZone("east", 5*3600+30*60), time.FixedZone("west", -8*3600), time.Local}
	durations := []time.Duration{
		0, 1, 999, time.Microsecond, 1500 * time.Nanosecond, 999999, time.Millisecond, 1234567,
		time.Second, 1500 * time.Millisecond, 61 * time.Second, 3601*time.Second + 5, 100 * time.Hour,
		-1, -1500 * time.Millisecond, 1<<63 - 1, -1 << 63,
	}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2}
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 11, 26, 18, 59, 59, 999_950_000, time.UTC)
	// One buffer for every line, as the pool's buffers serve many: its
	// cached second is used whenever a line falls in it.
	lb := &lineBuf{}
	check := func(l *requestLine) {
		t.Helper()
		want := slogLine(t, l)
		if got := string(lb.appendRequest(nil, l)); got != want {
			t.Fatalf("line differs:\n got %q\nwant %q", got, want)
		}
		if got := string((&lineBuf{}).appendRequest(nil, l)); got != want {
			t.Fatalf("line differs (no cache):\n got %q\nwant %q", got, want)
		}
	}
	for i, s := range strs {
		for _, sock := range []bool{false, true} {
			check(&requestLine{t: base, level: slog.LevelInfo, method: s, path: s, id: s, socket: s, hasSocket: sock, status: 200, duration: time.Millisecond, bytes: int64(i)})
		}
	}
	for _, d := range durations {
		check(&requestLine{t: base, level: slog.LevelInfo, method: "GET", path: "/", id: "x", status: 304, duration: d, bytes: -1})
	}
	for _, lv := range levels {
		check(&requestLine{t: base, level: lv, method: "GET", path: "/", id: "x", status: 500})
	}
	for range 2000 {
		zone := zones[rng.IntN(len(zones))]
		tm := base.Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour)))).In(zone)
		check(&requestLine{
			t: tm, level: slog.LevelInfo,
			method: strs[rng.IntN(len(strs))], path: strs[rng.IntN(len(strs))], id: strs[rng.IntN(len(strs))],
			socket: strs[rng.IntN(len(strs))], hasSocket: rng.IntN(2) == 0,
			status: rng.IntN(600), duration: time.Duration(rng.Int64N(int64(2*time.Hour))) >> rng.IntN(40), bytes: rng.Int64(),
		})
	}
	// Lines in the same second, across zones, across a second's and a
	// zone transition's boundaries.
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		ny = time.FixedZone("ny", -5*3600)
	}
	dst := time.Date(2026, 3, 8, 6, 59, 59, 0, time.UTC) // 01:59:59 EST, then 03:00:00 EDT
	for i := range 3000 {
		tm := dst.Add(time.Duration(i) * 997 * time.Microsecond)
		for _, z := range []*time.Location{ny, time.UTC, ny, zones[1]} {
			check(&requestLine{t: tm.In(z), level: slog.LevelInfo, method: "GET", path: "/", id: "x", status: 200})
		}
	}
	for _, tm := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 5e6, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 5e6, time.UTC), {}} {
		check(&requestLine{t: tm, level: slog.LevelInfo, method: "GET", path: "/", id: "x", status: 200})
	}
	// time.Now carries a monotonic reading, which slog drops.
	check(&requestLine{t: time.Now(), level: slog.LevelInfo, method: "GET", path: "/", id: "x", status: 200})
}

// TestWrapTextHandler checks that Wrap's own line, through a TextHandler,
// is the line slog wrote for the same request, for HTTP and socket
// requests, and that other records still go through slog.
func TestWrapTextHandler(t *testing.T) {
	for _, socket := range []bool{false, true} {
		var buf bytes.Buffer
		log := slog.New(NewTextHandler(&buf, slog.LevelInfo))
		h := New(log, slog.LevelInfo).Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte("hello"))
		}))
		r := httptest.NewRequest(http.MethodPost, "/pet/a%20b", nil)
		r.Header.Set(Header, "client-id")
		if socket {
			r = r.WithContext(socketctx.NewContext(r.Context(), "sock1"))
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		got := buf.String()
		// The duration and time vary: compare with slog's line for them.
		var tm time.Time
		var d time.Duration
		fields := strings.Fields(got)
		for _, f := range fields {
			switch k, v, _ := strings.Cut(f, "="); k {
			case "time":
				var err error
				if tm, err = time.Parse("2006-01-02T15:04:05.000Z07:00", v); err != nil {
					t.Fatal(err)
				}
			case "duration":
				var err error
				if d, err = time.ParseDuration(v); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := slogLine(t, &requestLine{t: tm, level: slog.LevelInfo, method: "POST", path: "/pet/a b", id: "client-id",
			socket: "sock1", hasSocket: socket, status: 201, duration: d, bytes: 5})
		if got != want {
			t.Errorf("socket %v: line\n got %q\nwant %q", socket, got, want)
		}
		buf.Reset()
		log.Info("other", "k", "v w")
		if got := buf.String(); !strings.HasSuffix(got, ` level=INFO msg=other k="v w"`+"\n") {
			t.Errorf("slog line %q", got)
		}
		buf.Reset()
		log.Debug("hidden")
		if buf.Len() != 0 {
			t.Errorf("debug line written at info: %q", buf.String())
		}
	}
}
