package skifftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// restKey is the object key that lets an expected object leave keys out.
const restKey = "..."

// MatchJSON reports how the JSON got differs from the expected JSON want,
// as one line per difference (none when they match). In want some strings
// are patterns (see the package doc): "$any", "$absent", "$number",
// "$string", "$timestamp", "$len N", "$contains TEXT", and "$$..." for a
// string starting with "$"; an object with the key "..." may hold keys it
// does not list. The error is for a want that is not JSON or has an
// unknown pattern, or a got that is not JSON.
func MatchJSON(want, got []byte) ([]string, error) {
	w, err := decodeJSON(want)
	if err != nil {
		return nil, fmt.Errorf("expected JSON: %w", err)
	}
	g, err := decodeJSON(got)
	if err != nil {
		return nil, fmt.Errorf("answer is not JSON: %w: %s", err, cut(got))
	}
	var diffs []string
	if err := match(w, g, "body", &diffs); err != nil {
		return nil, err
	}
	return diffs, nil
}

// decodeJSON decodes one JSON value, numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one value")
	}
	return v, nil
}

func match(want, got any, at string, diffs *[]string) error {
	fail := func(format string, args ...any) {
		*diffs = append(*diffs, at+": "+fmt.Sprintf(format, args...))
	}
	switch w := want.(type) {
	case string:
		if !strings.HasPrefix(w, "$") {
			if got != w {
				fail("got %s, want %q", show(got), w)
			}
			return nil
		}
		return matchPattern(w, got, fail)
	case json.Number:
		n, ok := got.(json.Number)
		if !ok || !sameNumber(w, n) {
			fail("got %s, want %s", show(got), w)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			fail("got %s, want an array of %d", show(got), len(w))
			return nil
		}
		if len(g) != len(w) {
			fail("got %d elements, want %d: %s", len(g), len(w), show(got))
			return nil
		}
		for i := range w {
			if err := match(w[i], g[i], fmt.Sprintf("%s[%d]", at, i), diffs); err != nil {
				return err
			}
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			fail("got %s, want an object", show(got))
			return nil
		}
		_, rest := w[restKey]
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if k == restKey {
				continue
			}
			v, present := g[k]
			if w[k] == "$absent" {
				if present {
					fail("key %q is present (%s), want it absent", k, show(v))
				}
				continue
			}
			if !present {
				fail("key %q is missing, want %s", k, show(w[k]))
				continue
			}
			if err := match(w[k], v, at+"."+k, diffs); err != nil {
				return err
			}
		}
		if !rest {
			for _, k := range slices.Sorted(maps.Keys(g)) {
				if _, ok := w[k]; !ok {
					fail("unexpected key %q (%s); add \"...\" to allow more keys", k, show(g[k]))
				}
			}
		}
	default: // nil, bool
		if !reflect.DeepEqual(want, got) {
			fail("got %s, want %s", show(got), show(want))
		}
	}
	return nil
}

// matchPattern matches got against a "$..." pattern.
func matchPattern(p string, got any, fail func(string, ...any)) error {
	verb, arg, _ := strings.Cut(p[1:], " ")
	switch {
	case strings.HasPrefix(p, "$$"):
		if got != p[1:] {
			fail("got %s, want %q", show(got), p[1:])
		}
	case verb == "any":
	case verb == "number":
		if _, ok := got.(json.Number); !ok {
			fail("got %s, want a number", show(got))
		}
	case verb == "string":
		if _, ok := got.(string); !ok {
			fail("got %s, want a string", show(got))
		}
	case verb == "timestamp":
		// Milliseconds since the epoch, as Sails' autoCreatedAt: any time
		// after 2001 has 13 digits.
		n, ok := got.(json.Number)
		if f, err := n.Float64(); !ok || err != nil || f < 1e12 {
			fail("got %s, want a timestamp in milliseconds", show(got))
		}
	case verb == "len":
		n, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("pattern %q: want $len N", p)
		}
		if g, ok := got.([]any); !ok || len(g) != n {
			fail("got %s, want an array of %d", show(got), n)
		}
	case verb == "contains":
		if g, ok := got.(string); !ok || !strings.Contains(g, arg) {
			fail("got %s, want a string containing %q", show(got), arg)
		}
	case verb == "absent":
		fail("got %s, want no key at all", show(got))
	default:
		return fmt.Errorf("unknown pattern %q (write $$ for a literal $)", p)
	}
	return nil
}

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	fa, errA := a.Float64()
	fb, errB := b.Float64()
	return errA == nil && errB == nil && fa == fb
}

// show renders a decoded JSON value for a message, cut short when long.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(b)
}

// cut shortens b for a message.
func cut(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
