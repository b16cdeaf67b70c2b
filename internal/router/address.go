package router

import (
	"fmt"
	"strings"
)

// isVerb reports whether v is a verb a Sails route address may start with
// (Sails' detect-verb); "ALL" means every verb.
func isVerb(v string) bool {
	switch v {
	case "ALL", "GET", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH", "HEAD":
		return true
	}
	return false
}

// ParseAddress splits a Sails route address "[VERB ]/path" into an
// upper-cased method ("" when the address names no verb, or "all") and the
// path: "GET /user/:id" → ("GET", "/user/:id"), "/x" → ("", "/x"). A bare
// "*" is read as "/*", as Sails does. It fails on an unknown verb and on a
// path that neither starts with "/" nor is a regex address ("r|...|...").
// The path pattern itself is checked by Add.
func ParseAddress(addr string) (method, path string, err error) {
	addr = strings.TrimSpace(addr)
	path = addr
	if i := strings.IndexAny(addr, " \t"); i >= 0 {
		verb := strings.ToUpper(addr[:i])
		if !isVerb(verb) {
			return "", "", fmt.Errorf("route address %q: unknown verb %q", addr, addr[:i])
		}
		if verb != "ALL" {
			method = verb
		}
		path = strings.TrimSpace(addr[i:])
	}
	if path == "*" {
		path = "/*"
	}
	if !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "r|") {
		return "", "", fmt.Errorf("route address %q: path must start with / (or be r|regex|names)", addr)
	}
	if strings.ContainsAny(path, " \t") && !strings.HasPrefix(path, "r|") {
		return "", "", fmt.Errorf("route address %q: path contains whitespace", addr)
	}
	return method, path, nil
}

// DefaultSkipAssets is Sails' default for Route.SkipAssets: true for a route
// that answers GET (method "GET", or "" since a verb-less Sails address binds
// GET among others) whose path ends in a ":param" segment. Regex addresses
// default to false. Callers apply it unless the route sets skipAssets.
func DefaultSkipAssets(method, path string) bool {
	if method != "" && !strings.EqualFold(method, "GET") {
		return false
	}
	if strings.HasPrefix(path, "r|") {
		return false
	}
	return endsInParam(path)
}

// endsInParam is Sails' test for a path whose last segment holds a route
// parameter, /:[^/]+\/?$/ in lib/router/bind.js: a ":" followed by at least
// one character in the last segment (one trailing slash ignored).
func endsInParam(path string) bool {
	p := strings.TrimSuffix(path, "/")
	last := p[strings.LastIndexByte(p, '/')+1:]
	i := strings.IndexByte(last, ':')
	return i >= 0 && i < len(last)-1
}
