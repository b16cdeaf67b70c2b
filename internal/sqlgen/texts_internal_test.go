package sqlgen

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestTextCacheInterns: the same text comes back as the same string, a
// nil cache still answers, and a full cache stops keeping texts.
func TestTextCacheInterns(t *testing.T) {
	c := newTextCache()
	a, b := c.intern([]byte("SELECT 1")), c.intern([]byte("SELECT 1"))
	if a != "SELECT 1" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Fatalf("intern: %q and %q are not one string", a, b)
	}
	var none *textCache
	if got := none.intern([]byte("x")); got != "x" {
		t.Fatalf("nil cache: %q", got)
	}
	none.release(none.buffer())
	for i := range maxTexts + 10 {
		c.intern(fmt.Appendf(nil, "SELECT %d", i))
	}
	if len(c.m) != maxTexts {
		t.Fatalf("%d texts kept, want %d", len(c.m), maxTexts)
	}
}
