package session

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
)

// maxCookieLen bounds the cookie values Unsign looks at; real ones are
// about 90 bytes.
const maxCookieLen = 1024

// Sign returns the cookie value express-session would set for token:
// "s:<token>.<sig>" with sig the unpadded standard base64 of
// HMAC-SHA256(token, secret) (the cookie-signature package), then
// URL-encoded as encodeURIComponent does ("s%3A...").
func Sign(token, secret string) string {
	return encodeURIComponent("s:" + token + "." + signature(token, secret))
}

// Unsign returns the token of a cookie value made by Sign with secret. It
// reports false for anything else: a value that is not URL-decodable, not
// "s:"-prefixed (express-session ignores unsigned cookies too), without a
// signature, or whose signature does not match (compared in constant
// time).
func Unsign(value, secret string) (string, bool) {
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
	if !hmac.Equal([]byte(sig), []byte(signature(token, secret))) {
		return "", false
	}
	return token, true
}

func signature(token, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(token))
	return base64.RawStdEncoding.EncodeToString(mac.Sum(nil))
}

// encodeURIComponent escapes s as JavaScript's encodeURIComponent does:
// everything but A-Z a-z 0-9 - _ . ! ~ * ' ( ) is percent-encoded as UTF-8.
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			strings.IndexByte("-_.!~*'()", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
