package httpapi

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/skiffhq/skiff/model"
)

// appendJSON appends v as JSON, byte for byte as encoding/json would with
// HTML escaping off, for the shapes records take (maps, lists, strings,
// float64, bool, nil); anything else goes through encoding/json. Records
// are most of what Skiff writes, and reflection over map[string]any was a
// fifth of a populated list's CPU time.
func appendJSON(b []byte, v any) ([]byte, error) {
	e := encoder{b: b}
	err := e.value(v)
	return e.b, err
}

// encoder writes one JSON document. It remembers the sorted keys of the
// last few objects it wrote: the records of a list share their keys, and
// reusing the order (and the keys already quoted) spares listing, sorting
// and escaping the keys of every record.
type encoder struct {
	b      []byte
	shapes [4]shape
	next   int
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
		e.b, err = appendFloat(e.b, x)
		return err
	case string:
		e.b = appendString(e.b, x)
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
					sh.quoted = make([]string, len(sh.keys))
					for i, k := range sh.keys {
						sh.quoted[i] = string(append(appendString(nil, k), ':'))
					}
				}
				return e.fields(sh.quoted, vals[:len(m)])
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
		e.b = appendString(e.b, k)
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
		if err := e.value(vals[i]); err != nil {
			return err
		}
	}
	e.b = append(e.b, '}')
	return nil
}

// appendFloat formats like encoding/json: shortest form, exponent only
// outside [1e-6, 1e21). Whole numbers (keys, counts, timestamps) take a
// shortcut: below 2^53 their shortest form is their integer digits.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 && (f != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(b, int64(f), 10), nil
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

const hex = "0123456789abcdef"

// appendString quotes s as encoding/json does without HTML escaping:
// control characters, quotes, backslashes, U+2028/U+2029 escaped, invalid
// UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
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
