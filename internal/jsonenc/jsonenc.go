// Package jsonenc writes JSON as encoding/json would (HTML escaping off),
// for the values records hold, without reflection: records are most of
// what Skiff writes.
package jsonenc

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/skiffhq/skiff/model"
)

// Append appends v as JSON, byte for byte as encoding/json would with HTML
// escaping off, for the shapes records take (maps, lists, strings,
// float64, bool, nil, and json.RawMessage, which must be compact and is
// copied as it is); anything else goes through encoding/json. Reflection
// over map[string]any was a fifth of a populated list's CPU time. known
// (nil means none) are object shapes to try before working one out.
func Append(b []byte, v any, known *Shapes) ([]byte, error) {
	e := encoder{b: b, known: known}
	err := e.value(v)
	return e.b, err
}

// Shapes holds the key sets that the records of an app's models take,
// sorted and quoted once when the handler is built, so that an answer of a
// single record (which has no earlier record to take the order from) is
// written without listing, sorting and quoting its keys. It is read-only
// once built, and so safe for concurrent use.
type Shapes struct {
	byLen [maxShape + 1][]shape
}

// NewShapes returns the shapes of the records of models as blueprint
// answers hold them: every attribute but those customToJSON omits, and the
// same without the collections (a populated child, or population turned
// off). Models with a ToJSON function answer what it makes: none is known.
func NewShapes(models []*model.Model) *Shapes {
	s := &Shapes{}
	for _, m := range models {
		if m.ToJSON != nil {
			continue
		}
		var full, single []string
		for _, name := range m.Order {
			a := m.Attributes[name]
			if a == nil || slices.Contains(m.Omit, name) {
				continue
			}
			full = append(full, name)
			if !a.IsPlural() {
				single = append(single, name)
			}
		}
		s.add(full)
		s.add(single)
	}
	return s
}

// add adds the shape of keys, unless it is known already or too large.
func (s *Shapes) add(keys []string) {
	if len(keys) == 0 || len(keys) > maxShape {
		return
	}
	keys = slices.Sorted(slices.Values(keys))
	for _, sh := range s.byLen[len(keys)] {
		if slices.Equal(sh.keys, keys) {
			return
		}
	}
	s.byLen[len(keys)] = append(s.byLen[len(keys)], shape{keys: keys, quoted: quoteKeys(keys)})
}

// quoteKeys returns keys each quoted with its colon, as an object has them.
func quoteKeys(keys []string) []string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = QuoteKey(k)
	}
	return quoted
}

// QuoteKey returns k quoted with its colon, as an object's key is written.
func QuoteKey(k string) string {
	return string(append(AppendString(nil, k), ':'))
}

// encoder writes one JSON document. It remembers the sorted keys of the
// last few objects it wrote: the records of a list share their keys, and
// reusing the order (and the keys already quoted) spares listing, sorting
// and escaping the keys of every record.
type encoder struct {
	b      []byte
	shapes [4]shape
	next   int
	known  *Shapes
}

// shape is the key set of an object: its keys sorted, and once reused each
// quoted with its colon, as written.
type shape struct {
	keys   []string
	quoted []string
}

func (e *encoder) value(v any) error {
	switch x := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case bool:
		e.b = strconv.AppendBool(e.b, x)
	case float64:
		var err error
		e.b, err = AppendFloat(e.b, x)
		return err
	case string:
		e.b = AppendString(e.b, x)
	case json.RawMessage:
		e.b = append(e.b, x...)
	case model.Record:
		return e.object(x)
	case map[string]any:
		return e.object(x)
	case []model.Record:
		e.b = append(e.b, '[')
		for i, r := range x {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.object(r); err != nil {
				return err
			}
		}
		e.b = append(e.b, ']')
	case []any:
		e.b = append(e.b, '[')
		for i, el := range x {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.value(el); err != nil {
				return err
			}
		}
		e.b = append(e.b, ']')
	default:
		out, err := json.Marshal(v)
		if err != nil {
			return err
		}
		e.b = append(e.b, out...)
	}
	return nil
}

// maxShape is the largest object whose key order is remembered.
const maxShape = 16

func (e *encoder) object(m map[string]any) error {
	if m == nil {
		e.b = append(e.b, "null"...)
		return nil
	}
	if len(m) > 0 && len(m) <= maxShape {
		var vals [maxShape]any
		for i := range e.shapes {
			sh := &e.shapes[i]
			if len(sh.keys) == len(m) && lookupAll(m, sh.keys, vals[:len(m)]) {
				if sh.quoted == nil {
					// Quoted on the first reuse: an answer of one record
					// never pays for it.
					sh.quoted = quoteKeys(sh.keys)
				}
				return e.fields(sh.quoted, vals[:len(m)])
			}
		}
		if e.known != nil {
			for _, sh := range e.known.byLen[len(m)] {
				if lookupAll(m, sh.keys, vals[:len(m)]) {
					// Remembered as any other: the shared slices are
					// never written.
					e.shapes[e.next] = sh
					e.next = (e.next + 1) % len(e.shapes)
					return e.fields(sh.quoted, vals[:len(m)])
				}
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > 0 && len(keys) <= maxShape {
		e.shapes[e.next] = shape{keys: keys}
		e.next = (e.next + 1) % len(e.shapes)
	}
	e.b = append(e.b, '{')
	for i, k := range keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = AppendString(e.b, k)
		e.b = append(e.b, ':')
		if err := e.value(m[k]); err != nil {
			return err
		}
	}
	e.b = append(e.b, '}')
	return nil
}

// lookupAll fills vals with m's values for keys and reports whether every
// key was there. With len(keys) == len(m), that means m has exactly keys.
func lookupAll(m map[string]any, keys []string, vals []any) bool {
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return false
		}
		vals[i] = v
	}
	return true
}

// fields writes an object from its quoted keys and their values.
func (e *encoder) fields(quoted []string, vals []any) error {
	e.b = append(e.b, '{')
	for i, k := range quoted {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, k...)
		if err := e.field(vals[i]); err != nil {
			return err
		}
	}
	e.b = append(e.b, '}')
	return nil
}

// field writes the value of an object's field: strings and whole numbers,
// most of a record, without a further call.
func (e *encoder) field(v any) error {
	switch x := v.(type) {
	case string:
		e.b = AppendString(e.b, x)
		return nil
	case float64:
		if x > -1<<53 && x < 1<<53 {
			if n := int64(x); float64(n) == x && n != 0 {
				e.b = AppendInt(e.b, n)
				return nil
			}
		}
	}
	return e.value(v)
}

// Writer appends the fields of records to a buffer one by one, as Append
// writes them, for callers that lay records out themselves (an answer
// encoded as its rows are read). It keeps the shapes of the objects
// nested in those fields (JSON attributes) as Append does within one
// document.
type Writer struct {
	e encoder
}

// NewWriter returns a Writer appending to b, trying the object shapes in
// known (nil means none) first.
func NewWriter(b []byte, known *Shapes) Writer {
	return Writer{e: encoder{b: b, known: known}}
}

// Raw appends s as it is: punctuation, or keys quoted by QuoteKey.
func (w *Writer) Raw(s string) { w.e.b = append(w.e.b, s...) }

// Value appends v as Append would write it as an object's field.
func (w *Writer) Value(v any) error { return w.e.field(v) }

// Bytes returns what was written.
func (w *Writer) Bytes() []byte { return w.e.b }

// AppendFloat formats like encoding/json: shortest form, exponent only
// outside [1e-6, 1e21). Whole numbers (keys, counts, timestamps) take a
// shortcut: below 2^53 their shortest form is their integer digits.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if f > -1<<53 && f < 1<<53 {
		// Converting to int64 and back keeps f exactly when it is whole
		// (cheaper than math.Trunc, a call without SSE4.1); -0 must still
		// go the long way, to "-0".
		if n := int64(f); float64(n) == f && (n != 0 || !math.Signbit(f)) {
			return AppendInt(b, n), nil
		}
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f)
		return b, err
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(b) - start
		if n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b, nil
}

// digitPairs holds "00" to "99", for writing integers two digits at a time.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// AppendInt is strconv.AppendInt(b, n, 10) for |n| < 2^53, writing into a
// stack buffer first: keys, counts and millisecond timestamps are most of
// the numbers Skiff writes, and AppendInt's generality cost a fifth of a
// record's encoding.
func AppendInt(b []byte, n int64) []byte {
	var buf [20]byte
	i := len(buf)
	u := uint64(n)
	if n < 0 {
		u = uint64(-n)
	}
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		buf[i], buf[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		i--
		buf[i] = byte('0' + u)
	}
	if n < 0 {
		i--
		buf[i] = '-'
	}
	return append(b, buf[i:]...)
}

const hex = "0123456789abcdef"

// Masks for scanning eight bytes of a string at once (see plainRun).
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun returns how many leading bytes of s, in whole runs of eight,
// AppendString can copy as they are: ASCII from 0x20 up other than '"' and
// '\\'. A byte b < 0x20 makes b - 0x20 borrow; a quote or backslash makes
// its XOR with that character zero, and zero - 1 borrows; a borrow, or a
// byte at 0x80 or above, sets a high bit. Borrows only travel upwards from
// a byte that needs escaping, so a run without one is exact.
func plainRun(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		_ = s[i+7]
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		t := (x - 0x20*ones) | (x ^ '"'*ones - ones) | (x ^ '\\'*ones - ones)
		if (t&^x|x)&highs != 0 {
			break
		}
	}
	return i
}

// AppendString quotes s as encoding/json does without HTML escaping:
// control characters, quotes, backslashes, U+2028/U+2029 escaped, invalid
// UTF-8 replaced by U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := plainRun(s); i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
