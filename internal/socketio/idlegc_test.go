package socketio

import (
	"testing"
	"time"
)

// The idle collector collects once the flushers stay quiet after a burst,
// never before a burst nor while the writes go on.
func TestIdleCollectorAfterBurst(t *testing.T) {
	c := newIdleCollector()
	collected := 0
	var pending []func()
	c.collect = func() { collected++ }
	c.after = func(_ time.Duration, f func()) { pending = append(pending, f) }
	fire := func() {
		fs := pending
		pending = nil
		for _, f := range fs {
			f()
		}
	}

	c.wrote(burstBytes / 2)
	c.idle()
	if len(pending) != 0 {
		t.Fatal("a check was scheduled before a burst")
	}
	c.wrote(burstBytes / 2)
	c.idle()
	c.idle() // one check at a time
	if len(pending) != 1 {
		t.Fatalf("%d checks scheduled after a burst, want 1", len(pending))
	}
	c.wrote(2 * quietBytes) // still busy when the check runs
	fire()
	if collected != 0 {
		t.Fatal("collected while the writes went on")
	}
	c.idle()
	c.wrote(quietBytes / 2) // a trickle
	fire()
	if collected != 1 {
		t.Fatalf("collected %d times once quiet, want 1", collected)
	}
	c.idle()
	if len(pending) != 0 {
		t.Fatal("a check was scheduled with no burst since the collection")
	}
}
