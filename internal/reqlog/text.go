package reqlog

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// TextHandler is slog's TextHandler with default options but a level,
// writing to one writer, which the request log line skips: a Logger whose
// handler is a *TextHandler writes its line itself, in the very bytes
// slog.TextHandler would (same keys, order, quoting and time format), in
// about a tenth of the instructions, as slog's generic record formatting
// was a tenth of a cached read's. Every other record goes through slog.
// Lines written either way are whole: both write each line with one Write
// under one mutex.
type TextHandler struct {
	*slog.TextHandler
	w     *lockedWriter
	level slog.Leveler
	// bufs holds the buffers request lines are formatted in.
	bufs sync.Pool
}

// NewTextHandler returns a TextHandler writing to w the records at level
// or above (nil means slog.LevelInfo), as slog.NewTextHandler(w,
// &slog.HandlerOptions{Level: level}) does.
func NewTextHandler(w io.Writer, level slog.Leveler) *TextHandler {
	if level == nil {
		level = slog.LevelInfo
	}
	lw := &lockedWriter{w: w}
	h := &TextHandler{
		TextHandler: slog.NewTextHandler(lw, &slog.HandlerOptions{Level: level}),
		w:           lw,
		level:       level,
	}
	h.bufs.New = func() any { return &lineBuf{b: make([]byte, 0, 256)} }
	return h
}

// Enabled reports whether h writes records at level; the context is
// unused.
func (h *TextHandler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.level.Level()
}

// lockedWriter serialises the writes of the slog handler and of the
// request lines, each of which is one whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lockedWriter) Write(b []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(b)
}

// requestLine is what a request's log line says.
type requestLine struct {
	t                time.Time
	level            slog.Level
	method, path, id string
	socket           string // the socket's id, when hasSocket (a virtual request)
	status           int
	duration         time.Duration
	bytes            int64
	hasSocket        bool
}

// writeRequest writes l's line as slog.TextHandler would write the record
// "request" with l's attributes (see Logger.Wrap).
func (h *TextHandler) writeRequest(l *requestLine) error {
	lb := h.bufs.Get().(*lineBuf)
	b := lb.appendRequest(lb.b[:0], l)
	_, err := h.w.Write(b)
	if cap(b) <= 4<<10 { // a huge path's buffer is not kept
		lb.b = b
		h.bufs.Put(lb)
	}
	return err
}

// lineBuf is a buffer for request lines, with the time formatting of the
// last line's second: lines come many to the second, and formatting a
// time was a third of a line's cost.
type lineBuf struct {
	b []byte
	// sec and loc are the Unix second and the location of the time whose
	// formatting is kept: its first 19 bytes (up to the seconds) in
	// prefix, its zone ("Z", "+01:00") in zone.
	sec    int64
	loc    *time.Location
	prefix [len("2006-01-02T15:04:05")]byte
	zone   []byte
}

// appendRequest appends l's line to b.
func (lb *lineBuf) appendRequest(b []byte, l *requestLine) []byte {
	if !l.t.IsZero() { // as slog, which omits a zero time
		b = append(b, "time="...)
		b = lb.appendTime(b, l.t.Round(0))
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = appendTextString(b, l.level.String())
	b = append(b, " msg=request method="...)
	b = appendTextString(b, l.method)
	b = append(b, " path="...)
	b = appendTextString(b, l.path)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, " duration="...)
	b = appendDuration(b, l.duration)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, " request_id="...)
	b = appendTextString(b, l.id)
	if l.hasSocket {
		b = append(b, " socket="...)
		b = appendTextString(b, l.socket)
	}
	return append(b, '\n')
}

// appendTime is appendRFC3339Millis, from the formatting of the last
// time when it falls in the same second and location (a zone's offset
// changes on a second's boundary).
func (lb *lineBuf) appendTime(b []byte, t time.Time) []byte {
	sec, loc := t.Unix(), t.Location()
	if lb.loc == loc && lb.sec == sec && lb.loc != nil {
		ms := t.Nanosecond() / int(time.Millisecond)
		b = append(b, lb.prefix[:]...)
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		return append(b, lb.zone...)
	}
	n := len(b)
	b = appendRFC3339Millis(b, t)
	if len(b)-n < len(lb.prefix)+4 || b[n+len(lb.prefix)] != '.' {
		return b // a year beyond 9999 or before 0: not kept
	}
	lb.sec, lb.loc = sec, loc
	copy(lb.prefix[:], b[n:])
	lb.zone = append(lb.zone[:0], b[n+len(lb.prefix)+4:]...)
	return b
}

// appendRFC3339Millis is slog's time format: RFC 3339 with exactly three
// digits of milliseconds, truncated (the same steps as slog's own).
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}

// appendTextString appends s as slog.TextHandler writes a string: as it
// is, or Go-quoted when it is empty or holds a space, '=', '"', a control
// character, or a non-printing, space or invalid rune.
func appendTextString(b []byte, s string) []byte {
	if needsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// needsQuoting is slog's rule for text values.
func needsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// slog quotes what JSON would escape (controls and '"'; the
			// backslash excepted), space and '='; DEL is left as it is.
			if c <= ' ' || c == '"' || c == '=' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// appendDuration appends d as d.String() gives it, without the string.
func appendDuration(b []byte, d time.Duration) []byte {
	var buf [32]byte
	w := len(buf)
	u := uint64(d)
	neg := d < 0
	if neg {
		u = -u
	}
	if u < uint64(time.Second) {
		// Special case: if duration is smaller than a second, use
		// smaller units, like 1.2ms.
		var prec int
		w--
		buf[w] = 's'
		w--
		switch {
		case u == 0:
			return append(b, "0s"...)
		case u < uint64(time.Microsecond):
			prec = 0
			buf[w] = 'n'
		case u < uint64(time.Millisecond):
			prec = 3
			// U+00B5 'µ' micro sign == 0xC2 0xB5
			w-- // Need room for two bytes.
			copy(buf[w:], "µ")
		default:
			prec = 6
			buf[w] = 'm'
		}
		w, u = fmtFrac(buf[:w], u, prec)
		w = fmtInt(buf[:w], u)
	} else {
		w--
		buf[w] = 's'
		w, u = fmtFrac(buf[:w], u, 9)
		// u is now integer seconds
		w = fmtInt(buf[:w], u%60)
		u /= 60
		// u is now integer minutes
		if u > 0 {
			w--
			buf[w] = 'm'
			w = fmtInt(buf[:w], u%60)
			u /= 60
			// u is now integer hours
			if u > 0 {
				w--
				buf[w] = 'h'
				w = fmtInt(buf[:w], u)
			}
		}
	}
	if neg {
		w--
		buf[w] = '-'
	}
	return append(b, buf[w:]...)
}

// fmtFrac formats the fraction of v/10**prec (e.g., ".12345") into the
// tail of buf, omitting trailing zeros, as package time does. It omits the
// decimal point too when the fraction is 0. It returns the index where the
// output bytes begin and the value v/10**prec.
func fmtFrac(buf []byte, v uint64, prec int) (nw int, nv uint64) {
	w := len(buf)
	printed := false
	for range prec {
		digit := v % 10
		printed = printed || digit != 0
		if printed {
			w--
			buf[w] = byte(digit) + '0'
		}
		v /= 10
	}
	if printed {
		w--
		buf[w] = '.'
	}
	return w, v
}

// fmtInt formats v into the tail of buf, as package time does. It returns
// the index where the output begins.
func fmtInt(buf []byte, v uint64) int {
	w := len(buf)
	if v == 0 {
		w--
		buf[w] = '0'
	} else {
		for v > 0 {
			w--
			buf[w] = byte(v%10) + '0'
			v /= 10
		}
	}
	return w
}
