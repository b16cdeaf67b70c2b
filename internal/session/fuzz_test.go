package session_test

import (
	"testing"

	"github.com/skiffhq/skiff/internal/session"
)

// FuzzUnsign checks that cookie parsing never panics, only accepts values
// that Sign produces, and that Sign and Unsign round-trip any token.
func FuzzUnsign(f *testing.F) {
	f.Add(session.Sign("hello", "tobiiscool"), "hello")
	f.Add("s%3Ahello.DGDUkGlIkCzPz%2BC0B064FNgHdEjox7ch8tOBGslZ5QI", "")
	f.Add("s:a.b.c", "a.b")
	f.Add("%", "%E0%A4%A")
	f.Fuzz(func(t *testing.T, value, token string) {
		const secret = "fuzz secret"
		if got, ok := session.Unsign(value, secret); ok {
			if again, ok := session.Unsign(session.Sign(got, secret), secret); !ok || again != got {
				t.Errorf("Unsign(%q) = %q, but Sign of it does not round-trip (%q, %v)", value, got, again, ok)
			}
		}
		signed := session.Sign(token, secret)
		if token == "" || len(signed) > 1024 {
			return
		}
		if got, ok := session.Unsign(signed, secret); !ok || got != token {
			t.Errorf("Unsign(Sign(%q)) = %q, %v; want the token back", token, got, ok)
		}
		if _, ok := session.Unsign(signed, "other"); ok {
			t.Errorf("Unsign(Sign(%q)) with another secret succeeded", token)
		}
	})
}
