package socketio

import (
	"crypto/rand"
	"encoding/base64"
)

// newID returns a socket id like socket.io's base64id: 15 random bytes, 20
// URL-safe base64 characters.
func newID() string {
	var b [15]byte
	rand.Read(b[:]) // never returns an error (crypto/rand, Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
