package params

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// qsOptions are the limits of one qs.parse call.
type qsOptions struct {
	depth          int // bracket levels parsed; deeper ones stay in the key
	arrayLimit     int // highest index that makes an array; above it, a map key
	parameterLimit int // pairs read; the rest is dropped
}

// qs' defaults, which Express 4's query parser uses.
const (
	queryDepth          = 5
	queryArrayLimit     = 20
	queryParameterLimit = 1000
)

// hole is an unset index of an array under construction (a JS sparse-array
// hole); compact removes them.
type hole struct{}

// pairs is qs' intermediate object: decoded keys in first-seen order, with
// repeated keys combined into arrays.
type pairs struct {
	keys []string
	vals map[string]any
}

func (p *pairs) add(k string, v any) {
	if p.vals == nil {
		p.vals = map[string]any{}
	}
	old, ok := p.vals[k]
	if !ok {
		p.keys = append(p.keys, k)
		p.vals[k] = v
		return
	}
	p.vals[k] = concat(old, v)
}

// ParseQuery parses a raw query string (without "?") the way Express 4's
// extended query parser (qs) does: "a[b]=1" nests, "a[]=1" and "a[0]=1"
// make arrays, repeated keys make arrays, "+" is a space, and a malformed
// percent-escape leaves its value undecoded. Values are strings. Limits are
// qs' defaults: 5 levels of nesting (deeper brackets stay part of the key),
// array indexes up to 20 (higher ones become map keys), 1000 pairs (the rest
// is ignored). The result is never nil. The error is always nil today; it is
// there so that stricter limits can be reported without an API change.
func ParseQuery(raw string) (map[string]any, error) {
	if raw == "" { // most requests: nothing to split or merge
		return map[string]any{}, nil
	}
	o := qsOptions{depth: queryDepth, arrayLimit: queryArrayLimit, parameterLimit: queryParameterLimit}
	return parseQS(splitPairs(raw, o.parameterLimit), o), nil
}

// splitPairs decodes the first limit "&"-separated pairs of s the way qs'
// parseValues does.
func splitPairs(s string, limit int) *pairs {
	p := &pairs{}
	for i := 0; i < limit && s != ""; i++ {
		part, rest, found := strings.Cut(s, "&")
		s = rest
		// qs splits at "]=" first so that "a[b=c]=d" keeps its key whole.
		pos := strings.Index(part, "]=")
		if pos >= 0 {
			pos++
		} else {
			pos = strings.IndexByte(part, '=')
		}
		if pos < 0 {
			p.add(decodeQS(part), "")
		} else {
			p.add(decodeQS(part[:pos]), decodeQS(part[pos+1:]))
		}
		if !found {
			break
		}
	}
	return p
}

// decodeQS is qs' decoder: "+" is a space, then decodeURIComponent; when
// that fails (a bad escape, or bytes that are not UTF-8) the value is kept
// as it was, with only the "+" replaced.
func decodeQS(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "+", " "), "\uFFFD")
	if !strings.Contains(s, "%") {
		return s
	}
	d, err := url.PathUnescape(s)
	if err != nil || !utf8.ValidString(d) {
		return s
	}
	return d
}

// parseQS turns decoded pairs into the nested value qs builds.
func parseQS(p *pairs, o qsOptions) map[string]any {
	var obj any = map[string]any{}
	for _, k := range jsKeyOrder(p.keys) {
		if v := parseKeys(k, p.vals[k], o); v != nil {
			obj = merge(obj, v)
		}
	}
	out, _ := compact(obj).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// jsKeyOrder orders keys as Object.keys does: array-index keys first in
// ascending order, then the others in insertion order. Which pair merges
// first can change the result ("1=b&1[x]=a").
func jsKeyOrder(keys []string) []string {
	var idx, rest []string
	for _, k := range keys {
		if _, ok := arrayIndex(k); ok {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	if idx == nil {
		return keys
	}
	slices.SortStableFunc(idx, func(a, b string) int {
		x, _ := arrayIndex(a)
		y, _ := arrayIndex(b)
		return x - y
	})
	return append(idx, rest...)
}

// parseKeys splits a key such as "a[b][]" into its chain ("a", "[b]", "[]")
// and builds the value it denotes; nil for an empty key.
func parseKeys(key string, val any, o qsOptions) any {
	if key == "" {
		return nil
	}
	parent := key
	start, _ := bracketSegment(key, 0)
	if o.depth > 0 && start >= 0 {
		parent = key[:start]
	}
	var chain []string
	if parent != "" {
		chain = append(chain, parent)
	}
	pos, depth := 0, 0
	start = -1
	for o.depth > 0 {
		var end int
		start, end = bracketSegment(key, pos)
		if start < 0 || depth >= o.depth {
			break
		}
		depth++
		chain = append(chain, key[start:end])
		pos = end
	}
	if start >= 0 {
		// Past the depth limit, the rest of the key is one literal segment.
		chain = append(chain, "["+key[start:]+"]")
	}
	return parseObject(chain, val, o)
}

// bracketSegment finds the first "[...]" at or after from whose inside has
// no bracket (qs' /(\[[^[\]]*])/), returning its bounds or -1.
func bracketSegment(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		if k := strings.IndexAny(s[i+1:], "[]"); k >= 0 && s[i+1+k] == ']' {
			return i, i + k + 2
		}
	}
	return -1, -1
}

func parseObject(chain []string, leaf any, o qsOptions) any {
	for i := len(chain) - 1; i >= 0; i-- {
		root := chain[i]
		if root == "[]" {
			leaf = concat(nil, leaf)
			continue
		}
		clean := root
		if len(root) >= 2 && root[0] == '[' && root[len(root)-1] == ']' {
			clean = root[1 : len(root)-1]
		}
		if idx, ok := arrayIndex(clean); ok && clean != root && idx <= o.arrayLimit {
			a := make([]any, idx+1)
			for j := range idx {
				a[j] = hole{}
			}
			a[idx] = leaf
			leaf = a
			continue
		}
		if clean == "__proto__" {
			leaf = map[string]any{}
			continue
		}
		leaf = map[string]any{clean: leaf}
	}
	return leaf
}

// arrayIndex reports whether s is a canonical non-negative decimal integer
// (String(parseInt(s)) === s), small enough to be an index.
func arrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// concat is JS [].concat(a, b) on our values: arrays are spread one level,
// nil (absent) contributes nothing.
func concat(a, b any) []any {
	var out []any
	for _, v := range []any{a, b} {
		switch x := v.(type) {
		case nil:
		case []any:
			out = append(out, x...)
		default:
			out = append(out, x)
		}
	}
	return out
}

func isObject(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// merge is qs' utils.merge: it folds source into target and returns the
// result (target may be modified in place).
func merge(target, source any) any {
	if source == nil || source == "" {
		return target
	}
	if !isObject(source) {
		switch t := target.(type) {
		case []any:
			return append(t, source)
		case map[string]any:
			if s, ok := source.(string); ok {
				t[s] = true
			}
			return t
		}
		return []any{target, source}
	}
	if !isObject(target) {
		return concat([]any{target}, source)
	}
	ta, tIsArr := target.([]any)
	sa, sIsArr := source.([]any)
	if tIsArr && sIsArr {
		for i, item := range sa {
			if _, isHole := item.(hole); isHole {
				continue
			}
			if i < len(ta) {
				if _, isHole := ta[i].(hole); !isHole {
					if isObject(ta[i]) && isObject(item) {
						ta[i] = merge(ta[i], item)
					} else {
						ta = append(ta, item)
					}
					continue
				}
			}
			for len(ta) <= i {
				ta = append(ta, hole{})
			}
			ta[i] = item
		}
		return ta
	}
	acc, ok := target.(map[string]any)
	if !ok {
		acc = arrayToObject(ta)
	}
	src, ok := source.(map[string]any)
	if !ok {
		src = arrayToObject(sa)
	}
	for k, v := range src {
		if old, ok := acc[k]; ok {
			acc[k] = merge(old, v)
		} else {
			acc[k] = v
		}
	}
	return acc
}

// arrayToObject turns an array into a map keyed by index, skipping holes.
func arrayToObject(x []any) map[string]any {
	out := make(map[string]any, len(x))
	for i, v := range x {
		if _, isHole := v.(hole); !isHole {
			out[strconv.Itoa(i)] = v
		}
	}
	return out
}

// compact drops array holes everywhere in v.
func compact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = compact(e)
		}
	case []any:
		out := x[:0]
		for _, e := range x {
			if _, isHole := e.(hole); !isHole {
				out = append(out, compact(e))
			}
		}
		return out
	}
	return v
}
