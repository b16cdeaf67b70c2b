package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// headers writes the headers Skiff's answers carry besides the body's
// own, so that the floor's answers are Skiff's byte for byte (but for the
// values that differ by nature: Date, the new session's token and its
// signature, the request id). Each is made the cheapest way a hand-written
// server would make it:
//
//   - the first-visit session cookie of Sails (express-session's
//     saveUninitialized): a request without a validly signed sails.sid
//     cookie gets one naming a new random token, signed with HMAC-SHA256 of
//     the secret; with it Vary: Cookie and Cache-Control: no-cache="Set-Cookie";
//   - Express's weak ETag of a GET's 2xx body: W/"<length, hex>-<SHA-1,
//     base64, 27 characters>";
//   - X-Request-Id: the request's own when it sends a printable one of at
//     most 128 bytes, else a random prefix per process and a counter.
//
// The floor stores no session: Skiff stores none either until something
// is put in it.
type headers struct {
	macs     sync.Pool // hash.Hash: HMAC-SHA256 keyed with the secret
	idPrefix string
	ids      atomic.Uint64
}

func newHeaders(secret string) *headers {
	var b [6]byte
	_, _ = rand.Read(b[:])
	h := &headers{idPrefix: hex.EncodeToString(b[:]) + "-"}
	key := []byte(secret)
	h.macs.New = func() any { return hmac.New(sha256.New, key) }
	return h
}

// cookieName and cookieAttrs are Skiff's defaults (session.name,
// session.cookie.*), which bench/floor/app keeps.
const (
	cookieName  = "sails.sid"
	cookieAttrs = "; Path=/; HttpOnly; SameSite=Lax"
)

// set writes the headers for r's answer, whose body is body; etag says
// whether the answer carries one (a GET's 2xx).
func (h *headers) set(w http.ResponseWriter, r *http.Request, body []byte, etag bool) {
	hd := w.Header()
	if !h.validCookie(r) {
		hd["Set-Cookie"] = []string{h.newCookie()}
		hd["Vary"] = []string{"Cookie"}
		hd["Cache-Control"] = []string{`no-cache="Set-Cookie"`}
	}
	if etag {
		hd["Etag"] = []string{weakETag(body)}
	}
	id := ""
	if v := r.Header["X-Request-Id"]; len(v) > 0 && validID(v[0]) {
		id = v[0]
	} else {
		var buf [48]byte
		id = string(strconv.AppendUint(append(buf[:0], h.idPrefix...), h.ids.Add(1), 10))
	}
	hd["X-Request-Id"] = []string{id}
}

// newCookie returns the Set-Cookie line of a new session.
func (h *headers) newCookie() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	var token [43]byte
	base64.RawURLEncoding.Encode(token[:], raw[:])
	var buf [256]byte
	b := append(buf[:0], cookieName+"=s%3A"...)
	b = append(b, token[:]...) // base64url needs no escaping
	b = append(b, '.')
	b = appendURIComponent(b, h.sign(token[:]))
	return string(append(b, cookieAttrs...))
}

// sign returns the base64 (unpadded) HMAC-SHA256 of token.
func (h *headers) sign(token []byte) []byte {
	mac := h.macs.Get().(hash.Hash)
	mac.Reset()
	mac.Write(token)
	var sum [sha256.Size]byte
	out := base64.RawStdEncoding.AppendEncode(nil, mac.Sum(sum[:0]))
	h.macs.Put(mac)
	return out
}

// validCookie reports whether r carries a sails.sid cookie this secret
// signed (s:<token>.<signature>, URI-encoded).
func (h *headers) validCookie(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return false
	}
	v, err := url.PathUnescape(c.Value)
	if err != nil {
		return false
	}
	rest, ok := strings.CutPrefix(v, "s:")
	if !ok {
		return false
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return false
	}
	return hmac.Equal(h.sign([]byte(rest[:dot])), []byte(strings.TrimRight(rest[dot+1:], "=")))
}

// appendURIComponent escapes b as JavaScript's encodeURIComponent, for the
// characters base64 uses.
func appendURIComponent(dst, b []byte) []byte {
	for _, c := range b {
		switch c {
		case '+':
			dst = append(dst, "%2B"...)
		case '/':
			dst = append(dst, "%2F"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// weakETag is Express's default ETag of body.
func weakETag(body []byte) string {
	sum := sha1.Sum(body)
	var b [64]byte
	s := append(b[:0], `W/"`...)
	s = strconv.AppendUint(s, uint64(len(body)), 16)
	s = append(s, '-')
	s = base64.StdEncoding.AppendEncode(s, sum[:])
	return string(append(s[:len(s)-1], '"')) // 28 characters, the last "="
}

// validID reports whether a client's request id is kept: 1 to 128
// printable ASCII characters.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}
