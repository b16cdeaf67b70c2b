package model

import (
	"regexp"
	"testing"
)

// rttcNumber is the regular expression isNumericString stands for.
var rttcNumber = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// TestIsNumericStringMatchesRegexp: the hand-written matcher accepts
// exactly what the regular expression does, on every string of up to four
// characters from an alphabet of the characters that matter.
func TestIsNumericStringMatchesRegexp(t *testing.T) {
	alphabet := []byte("+-.eE019 x")
	var try func(b []byte)
	try = func(b []byte) {
		s := string(b)
		if got, want := isNumericString(s), rttcNumber.MatchString(s); got != want {
			t.Errorf("isNumericString(%q) = %v, the regular expression says %v", s, got, want)
		}
		if len(b) == 4 {
			return
		}
		for _, c := range alphabet {
			try(append(b, c))
		}
	}
	try(nil)
	for _, s := range []string{"12", "-1.5e10", "0.", ".5", "1e", "1e+", "+.e1", "١٢", "12\n", "Infinity", "0x10", "00012.3400E-007"} {
		if got, want := isNumericString(s), rttcNumber.MatchString(s); got != want {
			t.Errorf("isNumericString(%q) = %v, the regular expression says %v", s, got, want)
		}
	}
}

// FuzzIsNumericString compares the matcher with the regular expression on
// any string.
func FuzzIsNumericString(f *testing.F) {
	for _, s := range []string{"12", "-1.5e10", ".5", "1e+", "a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isNumericString(s), rttcNumber.MatchString(s); got != want {
			t.Errorf("isNumericString(%q) = %v, the regular expression says %v", s, got, want)
		}
	})
}
