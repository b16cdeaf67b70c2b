// Package reqlog gives every request an id and logs one line per request,
// for HTTP requests and socket virtual requests alike (both pass through
// the same handler). The id comes from the client's X-Request-Id when it
// is well formed, else it is generated; it is echoed in the response's
// X-Request-Id header, which is set before the next handler runs, so code
// further in (the error writer that logs a 500) reads it with ID.
package reqlog

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/skiffhq/skiff/internal/socketctx"
)

// Header is the request and response header carrying the request id.
const Header = "X-Request-Id"

// MaxIDLength bounds a request id taken from a client.
const MaxIDLength = 128

// ValidID reports whether a client's request id is usable: 1 to
// MaxIDLength printable ASCII characters without spaces, so that it can
// neither forge log lines nor bloat them.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// ID returns the request id of the response w is writing: the one Handler
// set, or "" outside it.
func ID(w http.ResponseWriter) string {
	if v := w.Header()[Header]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Observer receives every request's outcome, for metrics: transport is
// "http" or "socket", route the pattern of the route that served it
// ("GET /pet/:id"; "" when none matched). It must be safe for concurrent
// use and cheap: it runs on the request's goroutine.
type Observer interface {
	ObserveRequest(transport, method, route string, status int, d time.Duration)
}

// Logger is the request-logging middleware's configuration.
type Logger struct {
	log   *slog.Logger
	level slog.Level
	// text, when the logger's handler is a *TextHandler, writes the lines
	// without slog's record formatting.
	text *TextHandler
	// obs, when set, sees every request, whatever the log level.
	obs Observer
	// prefix and n make ids: a random prefix per process and a counter,
	// unique without a random read per request.
	prefix string
	n      atomic.Uint64
}

// New returns a Logger writing a line per request to log at level (Info
// for app requests, Debug for health checks).
func New(log *slog.Logger, level slog.Level) *Logger {
	var b [6]byte
	_, _ = rand.Read(b[:])
	l := &Logger{log: log, level: level, prefix: hex.EncodeToString(b[:]) + "-"}
	l.text, _ = log.Handler().(*TextHandler)
	return l
}

// Observe makes l report every request to obs as well; nil reports none.
// Call it before Wrap.
func (l *Logger) Observe(obs Observer) *Logger {
	l.obs = obs
	return l
}

// SetRoute records the pattern of the route serving the response w writes
// (the router calls it), for Observer; it does nothing outside Wrap or
// without an Observer.
func SetRoute(w http.ResponseWriter, pattern string) {
	for w != nil {
		if rw, ok := w.(*writer); ok {
			rw.route = pattern
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}

// NewID returns a fresh request id.
func (l *Logger) NewID() string {
	var buf [48]byte // one allocation: the string
	return string(strconv.AppendUint(append(buf[:0], l.prefix...), l.n.Add(1), 10))
}

// Wrap returns next with request ids and a log line per request: method,
// path, status, duration, bytes written, the socket id of a virtual
// request and the request id. A request whose handler panics is logged
// with status 500 (the panic goes on). When the logger's level is above
// l's, only the id is set: no writer is wrapped and nothing is formatted.
func (l *Logger) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The key is canonical, as Get would make it: the map is read
		// directly.
		var id string
		if v := r.Header[Header]; len(v) > 0 {
			id = v[0]
		}
		if !ValidID(id) {
			id = l.NewID()
		}
		ctx := r.Context()
		var logging bool
		if l.text != nil {
			logging = l.text.Enabled(ctx, l.level)
		} else {
			logging = l.log.Enabled(ctx, l.level)
		}
		if !logging && l.obs == nil {
			w.Header()[Header] = []string{id}
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rw := &writer{ResponseWriter: w}
		// The header's value lives in the writer: one allocation less.
		rw.id[0] = id
		w.Header()[Header] = rw.id[:1:1]
		finished := false
		defer func() {
			status := rw.status
			switch {
			case !finished:
				status = http.StatusInternalServerError
			case status == 0:
				status = http.StatusOK
			}
			// One clock read gives the duration and the line's time.
			end := time.Now()
			d := end.Sub(start)
			sock, isSocket := socketctx.FromContext(ctx)
			if l.obs != nil {
				transport := "http"
				if isSocket {
					transport = "socket"
				}
				l.obs.ObserveRequest(transport, r.Method, rw.route, status, d)
			}
			if !logging {
				return
			}
			if l.text != nil {
				_ = l.text.writeRequest(&requestLine{
					t: end, level: l.level, method: r.Method, path: r.URL.Path, id: id,
					socket: sock, hasSocket: isSocket, status: status, duration: d, bytes: rw.bytes,
				})
				return
			}
			attrs := [7]slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Duration("duration", d),
				slog.Int64("bytes", rw.bytes),
				slog.String("request_id", id),
			}
			n := 6
			if isSocket {
				attrs[6] = slog.String("socket", sock)
				n = 7
			}
			// The record goes to the handler directly: Logger.LogAttrs
			// would first walk the stack for the caller's pc (runtime.Callers),
			// which no handler here prints, a tenth of a cached read's time.
			rec := slog.NewRecord(end, l.level, "request", 0)
			rec.AddAttrs(attrs[:n]...)
			_ = l.log.Handler().Handle(ctx, rec)
		}()
		next.ServeHTTP(rw, r)
		finished = true
	})
}

// writer records the status and the size of a response.
type writer struct {
	http.ResponseWriter
	status int
	bytes  int64
	route  string
	id     [1]string // the X-Request-Id header's value
}

func (w *writer) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *writer) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush passes flushes on, for streaming Go actions.
func (w *writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
