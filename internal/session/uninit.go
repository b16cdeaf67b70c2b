package session

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
)

// A session that was never written to is not stored: its cookie names a
// fresh signed token, and the store first sees that token when something
// is put in the session. Loading such a token must still give a session
// under that very token (scs would start one under a new token when the
// store has none), or a login over a socket whose handshake carries the
// cookie of the first page load would land in a session the browser does
// not know. The store wrapper below hands scs a marker for those tokens,
// and the codec reads the marker as an empty session.

// A session that ends (Destroy, or RenewToken moving it away) leaves a
// marker under its old token for as long as a session lives, so that the
// token never names a session again: after a logout over a socket the
// browser still holds that cookie, and adopting it would hand a later login
// to anyone who had copied it. Such a token is treated like a missing
// cookie: a new one is issued, as express-session does for a session its
// store no longer has.

// loadMode tells the store wrapper, through the context of Load, how to
// find the request's token.
type loadMode uint8

const (
	// loadFresh: the token was made for this request; the store cannot hold
	// it, so it is not asked.
	loadFresh loadMode = iota + 1
	// loadAdopt: the token comes from a validly signed cookie; when the
	// store does not hold it, it names an empty session.
	loadAdopt
)

type loadKey struct{}

// loadState is what the Handler and the store wrapper share about one
// Load: how to find the token, and whether the store found it retired.
type loadState struct {
	mode    loadMode
	retired bool
}

// uninitialized is what the store wrapper hands scs for a session that
// was never stored, and retired what it stores for one that ended. No gob
// stream of scs' session record equals either.
var (
	uninitialized = []byte("\xffskiff: uninitialized session")
	retired       = []byte("\xffskiff: retired session")
)

// adoptingStore wraps the configured store so that Load keeps the token of
// a session that was never stored (see loadMode). It always offers scs
// the context forms, passing them on to the inner store's own when it has
// them.
type adoptingStore struct {
	inner scs.Store
	// lifetime is how long a retired token is remembered.
	lifetime time.Duration
}

var _ scs.CtxStore = adoptingStore{}

func (s adoptingStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	st, _ := ctx.Value(loadKey{}).(*loadState)
	if st != nil && st.mode == loadFresh {
		return uninitialized, true, nil
	}
	var (
		b     []byte
		found bool
		err   error
	)
	if c, ok := s.inner.(scs.CtxStore); ok {
		b, found, err = c.FindCtx(ctx, token)
	} else {
		b, found, err = s.inner.Find(token)
	}
	switch {
	case err != nil:
		return nil, false, err
	case found && bytes.Equal(b, retired):
		if st != nil {
			st.retired = true
		}
		return nil, false, nil
	case !found && st != nil && st.mode == loadAdopt:
		return uninitialized, true, nil
	}
	return b, found, nil
}

func (s adoptingStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if c, ok := s.inner.(scs.CtxStore); ok {
		return c.CommitCtx(ctx, token, b, expiry)
	}
	return s.inner.Commit(token, b, expiry)
}

// DeleteCtx retires token rather than forgetting it (see retired).
func (s adoptingStore) DeleteCtx(ctx context.Context, token string) error {
	return s.CommitCtx(ctx, token, retired, time.Now().Add(s.lifetime))
}

func (s adoptingStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

func (s adoptingStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

func (s adoptingStore) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }

// uninitCodec is scs' codec, reading the uninitialized marker as an empty
// session that lives for lifetime from now, as scs starts a new one.
type uninitCodec struct {
	scs.Codec
	lifetime time.Duration
}

func (c uninitCodec) Decode(b []byte) (time.Time, map[string]any, error) {
	if bytes.Equal(b, uninitialized) {
		return time.Now().Add(c.lifetime).UTC(), map[string]any{}, nil
	}
	return c.Codec.Decode(b)
}

// tokenLen is the length of a session token: 32 random bytes in unpadded
// base64.
const tokenLen = 43

// newToken returns a random session token, as scs makes them (32 bytes,
// URL-safe base64).
func newToken() string {
	var t [tokenLen]byte
	newTokenInto(&t)
	return string(t[:])
}

// newTokenInto writes a new token to t.
func newTokenInto(t *[tokenLen]byte) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand.Read panics instead)
	base64.RawURLEncoding.Encode(t[:], b[:])
}

// SocketCookie returns the Cookie header the virtual requests of the
// socket opened by handshake hs carry. It is the handshake's own unless
// the Manager saves uninitialized sessions and the handshake names no
// session by a validly signed cookie: then a fresh signed session cookie
// takes the place of the session cookie in it, as Sails'
// load-session-from-socket writes one into the handshake, so that the
// socket's requests share one session from the first. A handshake with a
// nosession header or query parameter keeps its cookie as it is (its
// requests get no session).
func (m *Manager) SocketCookie(hs *http.Request) string {
	header := strings.Join(hs.Header.Values("Cookie"), "; ")
	if !m.saveUninitialized || hs.Header.Get("nosession") != "" || hs.URL.Query().Get("nosession") != "" || m.token(hs) != "" {
		return header
	}
	return replaceCookie(header, m.name, m.signer.sign(newToken()))
}

// replaceCookie returns the Cookie header header with every cookie named
// name removed and name=value added.
func replaceCookie(header, name, value string) string {
	var parts []string
	for p := range strings.SplitSeq(header, ";") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if n, _, _ := strings.Cut(p, "="); strings.TrimSpace(n) == name {
			continue
		}
		parts = append(parts, p)
	}
	return strings.Join(append(parts, name+"="+value), "; ")
}
