package csrf

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// saltChars are the characters of a token's salt (the csrf package's rndm
// alphabet).
const saltChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// maxTokenLen bounds the tokens Verify looks at; real ones are 36 bytes.
const maxTokenLen = 256

// NewSecret returns a new per-session secret: 18 random bytes as unpadded
// base64url (24 characters), as the csrf package's secretSync makes them.
func NewSecret() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewToken returns a fresh token for secret: an 8-character random salt,
// "-", and the unpadded base64url SHA-1 of salt + "-" + secret. Every token
// minted for a secret stays valid as long as the secret does.
func NewToken(secret string) string {
	var salt [8]byte
	var rnd [8]byte
	rand.Read(rnd[:])
	for i, b := range rnd {
		// 62 does not divide 256; the tiny bias costs nothing here since
		// the salt is not a secret.
		salt[i] = saltChars[int(b)%len(saltChars)]
	}
	return tokenize(string(salt[:]), secret)
}

func tokenize(salt, secret string) string {
	sum := sha1.Sum([]byte(salt + "-" + secret))
	return salt + "-" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// Verify reports whether token was minted for secret, comparing in constant
// time. An empty secret verifies nothing.
func Verify(secret, token string) bool {
	if secret == "" || len(token) > maxTokenLen {
		return false
	}
	salt, _, ok := strings.Cut(token, "-")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(token), []byte(tokenize(salt, secret))) == 1
}
