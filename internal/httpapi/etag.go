package httpapi

import (
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
)

// weakETag returns the ETag Express gives a body (res.send with the
// default "etag" setting, the etag package's weak entity tag):
// W/"<length in hex>-<the first 27 characters of its SHA-1 in base64>".
// SHA-1 over a body already in memory costs microseconds; it names the
// bytes, it does not protect them.
func weakETag(body []byte) string {
	sum := sha1.Sum(body)
	var b [3 + 16 + 1 + 28 + 1]byte
	s := append(b[:0], `W/"`...)
	s = strconv.AppendUint(s, uint64(len(body)), 16)
	s = append(s, '-')
	n := len(s)
	s = s[:n+28]
	base64.StdEncoding.Encode(s[n:], sum[:]) // 28 characters, the last one "="
	s = append(s[:n+27], '"')
	return string(s)
}

// wantsETag reports whether an answer with status to r carries an ETag: a
// 2xx answer to a GET or HEAD request over HTTP. Sails' virtual requests
// (socket.io) never get one, as its response shim computes none. Express
// would also tag POST answers and errors; no cache ever revalidates those,
// so Skiff spares the hashing (docs/differences.md).
func wantsETag(r *http.Request, status int) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		status >= 200 && status < 300 && !isSocket(r)
}

// fresh reports whether the client already holds the answer tagged etag,
// so that 304 Not Modified can replace it, deciding as Express's req.fresh
// (the fresh package) does: the request must be conditional; Cache-Control:
// no-cache in it forces a full answer; If-None-Match must be "*" or list
// etag, compared weakly (W/"x" and "x" match); and an If-Modified-Since
// makes it stale, since a JSON answer has no Last-Modified to compare.
func fresh(h http.Header, etag string) bool {
	// Most requests are not conditional: two lookups of canonical keys (as
	// Values would look them up) settle them.
	if len(h["If-None-Match"]) == 0 && len(h["If-Modified-Since"]) == 0 {
		return false
	}
	var noneMatch string
	switch v := h.Values("If-None-Match"); len(v) {
	case 0:
	case 1:
		noneMatch = v[0]
	default:
		noneMatch = strings.Join(v, ", ") // as Node joins repeated lines
	}
	modifiedSince := h.Get("If-Modified-Since")
	if noneMatch == "" && modifiedSince == "" {
		return false
	}
	for _, cc := range h.Values("Cache-Control") {
		for directive := range strings.SplitSeq(cc, ",") {
			if strings.TrimSpace(directive) == "no-cache" {
				return false
			}
		}
	}
	if noneMatch != "" && noneMatch != "*" {
		matched := false
		for tok := range strings.SplitSeq(noneMatch, ",") {
			if etagMatch(strings.Trim(tok, " "), etag) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return modifiedSince == ""
}

// etagMatch is the fresh package's comparison: equal, or equal once either
// side's W/ prefix is put on the other.
func etagMatch(tok, etag string) bool {
	return tok == etag ||
		(strings.HasPrefix(etag, "W/") && tok == etag[2:]) ||
		(strings.HasPrefix(tok, "W/") && tok[2:] == etag)
}
