package session

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"net/url"
	"strings"
	"sync"
)

// maxCookieLen bounds the cookie values Unsign looks at; real ones are
// about 90 bytes.
const maxCookieLen = 1024

// Sign returns the cookie value express-session would set for token:
// "s:<token>.<sig>" with sig the unpadded standard base64 of
// HMAC-SHA256(token, secret) (the cookie-signature package), then
// URL-encoded as encodeURIComponent does ("s%3A...").
func Sign(token, secret string) string { return newSigner(secret).sign(token) }

// Unsign returns the token of a cookie value made by Sign with secret. It
// reports false for anything else: a value that is not URL-decodable, not
// "s:"-prefixed (express-session ignores unsigned cookies too), without a
// signature, or whose signature does not match (compared in constant
// time).
func Unsign(value, secret string) (string, bool) { return newSigner(secret).unsign(value) }

// signer signs and checks tokens with one secret. It keeps keyed HMAC
// states for reuse: keying one costs about as much as signing a token, and
// with first-visit cookies every cookie-less request signs one.
type signer struct {
	macs sync.Pool // of *macState
}

// macState is an HMAC keyed with the secret, with the buffers its
// interface methods are handed: a token or a sum passed to them from the
// stack would escape to the heap on every call.
type macState struct {
	mac hash.Hash
	in  []byte
	sum [sha256.Size]byte
}

func newSigner(secret string) *signer {
	s := &signer{}
	s.macs.New = func() any {
		return &macState{mac: hmac.New(sha256.New, []byte(secret)), in: make([]byte, 0, 64)}
	}
	return s
}

// uriSafe marks the bytes encodeURIComponent leaves as they are:
// A-Z a-z 0-9 - _ . ! ~ * ' ( ).
var uriSafe = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", byte(c)) >= 0
	}
	return t
}()

// sigLen is the length of a signature in base64: 32 bytes, unpadded.
const sigLen = 43

// appendSignature appends the unpadded standard base64 of
// HMAC-SHA256(token) to dst.
func appendSignature[T string | []byte](s *signer, dst []byte, token T) []byte {
	st := s.macs.Get().(*macState)
	st.mac.Reset()
	st.in = append(st.in[:0], token...)
	st.mac.Write(st.in)
	out := st.mac.Sum(st.sum[:0])
	dst = base64.RawStdEncoding.AppendEncode(dst, out)
	if cap(st.in) <= maxCookieLen {
		s.macs.Put(st)
	}
	return dst
}

// appendSigned appends the cookie value Sign gives token to b.
func appendSigned[T string | []byte](s *signer, b []byte, token T) []byte {
	var sig [sigLen]byte
	b = append(b, "s%3A"...)
	b = appendURIComponent(b, token)
	b = append(b, '.')
	return appendURIComponent(b, appendSignature(s, sig[:0], token))
}

func (s *signer) sign(token string) string {
	var buf [128]byte
	return string(appendSigned(s, buf[:0], token))
}

func (s *signer) unsign(value string) (string, bool) {
	if len(value) > maxCookieLen {
		return "", false
	}
	v, err := url.PathUnescape(value)
	if err != nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(v, "s:")
	if !ok {
		return "", false
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot <= 0 {
		return "", false
	}
	token, sig := rest[:dot], rest[dot+1:]
	if len(sig) != sigLen {
		return "", false
	}
	var want, got [sigLen]byte
	copy(got[:], sig)
	if !hmac.Equal(got[:], appendSignature(s, want[:0], token)) {
		return "", false
	}
	return token, true
}

// appendURIComponent appends s escaped as JavaScript's encodeURIComponent
// does: everything but A-Z a-z 0-9 - _ . ! ~ * ' ( ) is percent-encoded as
// UTF-8. Runs of safe bytes are copied whole: a token (URL-safe base64) is
// one run.
func appendURIComponent[T string | []byte](b []byte, s T) []byte {
	const hex = "0123456789ABCDEF"
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; !uriSafe[c] {
			b = append(b, s[start:i]...)
			b = append(b, '%', hex[c>>4], hex[c&15])
			start = i + 1
		}
	}
	return append(b, s[start:]...)
}
