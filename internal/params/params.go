// Package params reads request parameters with Sails semantics: query
// strings parsed like Express 4 (qs, or Node's flat querystring for socket
// requests), bodies parsed like Skipper (JSON, urlencoded, multipart fields),
// and req.allParams() / req.param() precedence over path, body and query.
//
// Values are what the project's records hold: nil, bool, float64, string,
// []any and map[string]any.
package params

import (
	"maps"
	"strconv"
	"strings"
)

// Merge implements Sails' req.allParams(): a new map holding query, then the
// body over it, then the path parameters over that. A map body is merged key
// by key; a JSON array body contributes its indexes ("0", "1", ...) as keys,
// as lodash's extend does in Sails; any other body contributes nothing. The
// inputs are not modified; nested values are shared, not copied.
func Merge(query map[string]any, body any, path map[string]string) map[string]any {
	out := make(map[string]any, len(query)+len(path))
	maps.Copy(out, query)
	switch b := body.(type) {
	case map[string]any:
		maps.Copy(out, b)
	case []any:
		for i, v := range b {
			out[strconv.Itoa(i)] = v
		}
	}
	for k, v := range path {
		out[k] = v
	}
	return out
}

// Param implements Sails' req.param(name): the path parameter if set, else
// the body's value (a map body's key, or an array body's index) if present,
// even when that value is null, else the query's. ok is false when name is
// absent from all three.
func Param(name string, query map[string]any, body any, path map[string]string) (any, bool) {
	if v, ok := path[name]; ok {
		return v, true
	}
	switch b := body.(type) {
	case map[string]any:
		if v, ok := b[name]; ok {
			return v, true
		}
	case []any:
		if i, ok := arrayIndex(name); ok && i < len(b) {
			return b[i], true
		}
	}
	v, ok := query[name]
	return v, ok
}

// flatMaxKeys is Node's querystring.parse default maxKeys.
const flatMaxKeys = 1000

// ParseFlatQuery parses a raw query string with Node's querystring rules,
// as Sails does for the URL of a socket virtual request: no nesting ("a[b]"
// is a plain key), repeated keys make arrays of strings, "+" is a space,
// malformed escapes are kept literally, and at most 1000 pairs are read.
// The result is never nil.
func ParseFlatQuery(raw string) map[string]any {
	out := map[string]any{}
	for i := 0; i < flatMaxKeys && raw != ""; {
		part, rest, found := strings.Cut(raw, "&")
		raw = rest
		if part != "" {
			i++
			k, v, _ := strings.Cut(part, "=")
			k, v = decodeFlat(k), decodeFlat(v)
			switch old := out[k].(type) {
			case nil:
				out[k] = v
			case []any:
				out[k] = append(old, v)
			default:
				out[k] = []any{old, v}
			}
		}
		if !found {
			break
		}
	}
	return out
}

// decodeFlat is Node's querystring.unescape after "+" → " ": percent-escapes
// that are well formed are decoded, others kept, and bytes that are not
// UTF-8 become U+FFFD.
func decodeFlat(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if !strings.Contains(s, "%") {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
