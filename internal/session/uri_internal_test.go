package session

import (
	"math/rand/v2"
	"testing"
)

// TestAppendURIComponent checks the run-copying escaper against the
// byte-at-a-time definition, over every byte and random strings.
func TestAppendURIComponent(t *testing.T) {
	naive := func(s string) string {
		const hex = "0123456789ABCDEF"
		var b []byte
		for i := 0; i < len(s); i++ {
			if c := s[i]; uriSafe[c] {
				b = append(b, c)
			} else {
				b = append(b, '%', hex[c>>4], hex[c&15])
			}
		}
		return string(b)
	}
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	inputs := []string{"", "abc", "a+b/c=", "%", "ü", string(all)}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			const alphabet = "aZ9-_.!~*'()+/= %\xff"
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		if got, want := string(appendURIComponent([]byte("x"), s)), "x"+naive(s); got != want {
			t.Fatalf("appendURIComponent(%q) = %q, want %q", s, got, want)
		}
		if got, want := string(appendURIComponent(nil, []byte(s))), naive(s); got != want {
			t.Fatalf("appendURIComponent([]byte %q) = %q, want %q", s, got, want)
		}
	}
}
