package router

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

type segKind uint8

const (
	segLit   segKind = iota // a literal segment, compared case-insensitively
	segParam                // ":name": one non-empty segment
	segOpt                  // ":name?": one non-empty segment, or nothing
	segWild                 // "*": one or more segments (possibly empty), joined
)

type seg struct {
	kind segKind
	text string // the literal, or the parameter name
}

// pattern is a compiled route path. Simple paths (every segment a literal,
// ":name", ":name?" or "*") keep their segments and match by walking them;
// anything else is translated to a regular expression following
// path-to-regexp 0.1 (Express 4), which the segment walk also agrees with.
// Paths with two or more "*" take the regular expression too: RE2 keeps them
// linear in the request path where backtracking over segments would not.
type pattern struct {
	segs []seg
	// branchy is set when segs has two or more optional or "*" segments,
	// whose backtracking needs memoizing to stay linear in the path.
	branchy bool
	re      *regexp.Regexp
	// groups names the path value each subexpression of re sets ("" for
	// none), indexed like re's submatches.
	groups []string
	// alias gives a second name to a subexpression: the name an r|...|names
	// address lists for it ("" for none).
	alias []string
	// static is set when every request the pattern matches starts with the
	// literal segment first (lower-cased).
	static bool
	first  string
}

// capture is one matched path parameter, still percent-encoded.
type capture struct {
	name, value string
}

func compile(path string) (*pattern, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	if strings.HasPrefix(path, "r|") {
		return compileRegexRoute(path)
	}
	if path[0] != '/' {
		return nil, errors.New("path must start with /")
	}
	if segs, ok := simpleSegments(path); ok && countKind(segs, segWild) < 2 {
		p := &pattern{segs: segs, branchy: countKind(segs, segOpt)+countKind(segs, segWild) >= 2}
		switch {
		case len(segs) == 0:
			p.static, p.first = true, ""
		case segs[0].kind == segLit:
			p.static, p.first = true, strings.ToLower(segs[0].text)
		}
		return p, nil
	}
	expr, names, err := translate(path)
	if err != nil {
		return nil, err
	}
	re, err := compileRegexp(expr)
	if err != nil {
		return nil, err
	}
	p := &pattern{re: re, groups: groupNames(re, names)}
	// A first segment that is a plain literal followed by "/" pins the
	// bucket, as for simple paths, unless what follows can swallow that "/"
	// (an optional ":name?" or ".:name?" right after it).
	if first, next, ok := strings.Cut(path[1:], "/"); ok && !strings.ContainsAny(first, ":*()") &&
		!strings.HasPrefix(next, ":") && !strings.HasPrefix(next, ".") {
		p.static, p.first = true, strings.ToLower(escapeLiteral(first))
	}
	return p, nil
}

func countKind(segs []seg, k segKind) int {
	n := 0
	for _, s := range segs {
		if s.kind == k {
			n++
		}
	}
	return n
}

// simpleSegments splits path into segments when each one is simple. One
// trailing slash is dropped: path-to-regexp makes it optional anyway.
func simpleSegments(path string) ([]seg, bool) {
	if path == "/" {
		return nil, true
	}
	p := strings.TrimSuffix(path[1:], "/")
	parts := strings.Split(p, "/")
	segs := make([]seg, 0, len(parts))
	wild := 0
	for _, s := range parts {
		switch {
		case s == "*":
			segs = append(segs, seg{kind: segWild, text: wildcardName(wild)})
			wild++
		case !strings.ContainsAny(s, ":*()"):
			segs = append(segs, seg{kind: segLit, text: escapeLiteral(s)})
		case s[0] == ':' && isWordString(strings.TrimSuffix(s[1:], "?")):
			if strings.HasSuffix(s, "?") {
				segs = append(segs, seg{kind: segOpt, text: s[1 : len(s)-1]})
			} else {
				segs = append(segs, seg{kind: segParam, text: s[1:]})
			}
		default:
			return nil, false
		}
	}
	return segs, true
}

// match reports whether the escaped request path (split into segs) matches,
// appending the captured parameters to caps.
func (p *pattern) match(path string, segs []string, caps []capture) ([]capture, bool) {
	if p.re != nil {
		return p.matchRegexp(path, caps)
	}
	if len(segs) == 0 {
		return caps, false
	}
	var failed []bool
	if p.branchy {
		failed = make([]bool, (len(p.segs)+1)*(len(segs)+1))
	}
	return walk(p.segs, path, segs, 0, 0, caps, failed)
}

func (p *pattern) matchRegexp(path string, caps []capture) ([]capture, bool) {
	sub := p.re.FindStringSubmatchIndex(path)
	if sub == nil {
		return caps, false
	}
	for i, name := range p.groups {
		if sub[2*i] < 0 {
			continue
		}
		v := path[sub[2*i]:sub[2*i+1]]
		if name != "" {
			caps = append(caps, capture{name: name, value: v})
		}
		if p.alias != nil && p.alias[i] != "" {
			caps = append(caps, capture{name: p.alias[i], value: v})
		}
	}
	return caps, true
}

// walk matches pat[pi:] against segs[si:] (split from path), backtracking
// in the order a path-to-regexp expression would: optional segments and "*"
// are greedy. failed, when not nil, memoizes the (pi, si) states known not
// to match, which keeps branchy patterns linear in the path. It is a plain
// function of slices, not a method, so the caller's buffers stay on the
// stack.
func walk(pat []seg, path string, segs []string, pi, si int, caps []capture, failed []bool) ([]capture, bool) {
	if pi == len(pat) {
		// Allow one trailing slash, which shows as a final empty segment.
		return caps, si == len(segs) || (si == len(segs)-1 && segs[si] == "")
	}
	k := pi*(len(segs)+1) + si
	if failed != nil && failed[k] {
		return caps, false
	}
	n := len(caps)
	var ok bool
	switch s := pat[pi]; s.kind {
	case segLit:
		if si < len(segs) && strings.EqualFold(segs[si], s.text) {
			caps, ok = walk(pat, path, segs, pi+1, si+1, caps, failed)
		}
	case segParam:
		if si < len(segs) && segs[si] != "" {
			caps, ok = walk(pat, path, segs, pi+1, si+1, append(caps, capture{name: s.text, value: segs[si]}), failed)
		}
	case segOpt:
		if si < len(segs) && segs[si] != "" {
			caps, ok = walk(pat, path, segs, pi+1, si+1, append(caps, capture{name: s.text, value: segs[si]}), failed)
		}
		if !ok {
			caps, ok = walk(pat, path, segs, pi+1, si, caps[:n], failed)
		}
	case segWild:
		// The rest of the path from segs[si], shortened one segment at a
		// time: segs are consecutive substrings of path, one "/" apart.
		start := 1
		for _, sg := range segs[:si] {
			start += len(sg) + 1
		}
		end := len(path)
		for j := len(segs); j > si && !ok; j-- {
			caps, ok = walk(pat, path, segs, pi+1, j, append(caps[:n], capture{name: s.text, value: path[start:end]}), failed)
			end -= len(segs[j-1]) + 1
		}
	}
	if !ok {
		caps = caps[:n]
		if failed != nil {
			failed[k] = true
		}
	}
	return caps, ok
}

// translate turns a Sails/Express path into a Go regular expression the way
// path-to-regexp 0.1 does: ":name" (optionally "(custom)" and "?"), a "." or
// "/" before it folded into its group, "*" as "(.*)", and a trailing "/?".
// Unlike path-to-regexp, other characters are literal (it passes most regex
// syntax through), and bare "(...)" groups are refused.
func translate(path string) (string, []string, error) {
	var b strings.Builder
	b.WriteString("(?i)^")
	var names []string
	lit := ""
	unnamed := 0
	group := func(name, expr string) string {
		names = append(names, name)
		return fmt.Sprintf("(?P<skiff_p%d>%s)", len(names)-1, expr)
	}
	for i := 0; i < len(path); {
		c := path[i]
		switch {
		case c == ':' && i+1 < len(path) && isWord(path[i+1]):
			j := i + 1
			for j < len(path) && isWord(path[j]) {
				j++
			}
			name := path[i+1 : j]
			format := strings.HasSuffix(lit, ".")
			lit = strings.TrimSuffix(lit, ".")
			slash := strings.HasSuffix(lit, "/")
			lit = strings.TrimSuffix(lit, "/")
			b.WriteString(regexp.QuoteMeta(escapeLiteral(lit)))
			lit = ""
			capExpr := `[^/]+?`
			if format {
				capExpr = `[^/.]+?`
			}
			if j < len(path) && path[j] == '(' {
				end := closingParen(path, j)
				if end < 0 {
					return "", nil, fmt.Errorf("unbalanced ( after :%s", name)
				}
				capExpr = path[j+1 : end]
				j = end + 1
			}
			opt := j < len(path) && path[j] == '?'
			if opt {
				j++
			}
			prefix := ""
			if slash {
				prefix = "/"
			}
			if format {
				prefix += `\.`
			}
			if opt {
				b.WriteString("(?:" + prefix + group(name, capExpr) + ")?")
			} else {
				b.WriteString(prefix + "(?:" + group(name, capExpr) + ")")
			}
			i = j
		case c == '*':
			b.WriteString(regexp.QuoteMeta(escapeLiteral(lit)))
			lit = ""
			b.WriteString(group(wildcardName(unnamed), ".*"))
			unnamed++
			i++
		case c == '(':
			return "", nil, fmt.Errorf("unsupported group at offset %d (use :name(regex) or the r|regex|names form)", i)
		default:
			lit += path[i : i+1]
			i++
		}
	}
	if strings.HasSuffix(lit, "/") {
		b.WriteString(regexp.QuoteMeta(escapeLiteral(lit)) + "?")
	} else {
		b.WriteString(regexp.QuoteMeta(escapeLiteral(lit)) + "/?")
	}
	b.WriteString("$")
	return b.String(), names, nil
}

func compileRegexp(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("bad pattern: %w", err)
	}
	return re, nil
}

// closingParen returns the index of the ")" closing the "(" at open,
// honouring nesting and backslash escapes, or -1.
func closingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// groupNames maps re's subexpressions named skiff_p<i> to names[i].
func groupNames(re *regexp.Regexp, names []string) []string {
	out := make([]string, re.NumSubexp()+1)
	for i, n := range re.SubexpNames() {
		var k int
		if _, err := fmt.Sscanf(n, "skiff_p%d", &k); err == nil && k < len(names) {
			out[i] = names[k]
		}
	}
	return out
}

// compileRegexRoute compiles Sails' "r|<regex>|<names>" address. Like Sails,
// the regex is used as written (case-sensitive, not anchored unless it says
// so) and the comma-separated names are given to its groups in order; every
// group is also available under its index ("0", "1", ...) as in Express.
func compileRegexRoute(path string) (*pattern, error) {
	body := path[len("r|"):]
	i := strings.LastIndexByte(body, '|')
	if i < 0 {
		return nil, errors.New("regex address must be r|<regex>|<names>")
	}
	re, err := regexp.Compile(body[:i])
	if err != nil {
		return nil, fmt.Errorf("bad regex: %w", err)
	}
	var names []string
	if body[i+1:] != "" {
		names = strings.Split(body[i+1:], ",")
	}
	n := re.NumSubexp()
	p := &pattern{re: re, groups: make([]string, n+1), alias: make([]string, n+1)}
	for g := 1; g <= n; g++ {
		p.groups[g] = wildcardName(g - 1)
	}
	for k, name := range names {
		if name = strings.TrimSpace(name); name != "" && k+1 <= n {
			p.alias[k+1] = name
		}
	}
	return p, nil
}

// escapeLiteral percent-encodes the bytes of a literal that a request's
// escaped path can only contain encoded (non-ASCII, controls, space), so
// "/café" matches a browser's "/caf%C3%A9".
func escapeLiteral(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > ' ' && c < 0x7f {
			if b != nil {
				b = append(b, c)
			}
			continue
		}
		if b == nil {
			b = append(b, s[:i]...)
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	if b == nil {
		return s
	}
	return string(b)
}

func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isWordString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWord(s[i]) {
			return false
		}
	}
	return true
}
