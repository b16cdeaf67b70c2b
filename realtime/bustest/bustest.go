// Package bustest is the conformance suite of realtime.Bus
// implementations, as datastoretest is of datastore adapters: one test
// body run against every bus.
package bustest

import (
	"context"
	"testing"
	"time"

	"github.com/skiffhq/skiff/realtime"
)

// TestBus checks the contract of a realtime.Bus: what one bus publishes
// reaches another's Receive on the same prefix, in order, and not one on
// another prefix; Receive calls ready once subscribed and returns nil once
// its context is done. open returns a new bus on prefix; TestBus closes it.
func TestBus(t *testing.T, prefix string, open func(t *testing.T, prefix string) realtime.Bus) {
	t.Helper()
	newBus := func(prefix string) realtime.Bus {
		b := open(t, prefix)
		t.Cleanup(func() { b.Close() })
		return b
	}
	pub, sub, other, otherPub := newBus(prefix), newBus(prefix), newBus(prefix+"x"), newBus(prefix+"x")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listen := func(b realtime.Bus) (chan string, chan error, chan struct{}) {
		got, done, ready := make(chan string, 10), make(chan error, 1), make(chan struct{})
		go func() {
			done <- b.Receive(ctx, func() { close(ready) }, func(m []byte) { got <- string(m) })
		}()
		return got, done, ready
	}
	// next bounds each wait, so that a lost message fails the test
	// instead of hanging it.
	next := func(ch chan string) string {
		t.Helper()
		select {
		case m := <-ch:
			return m
		case <-ctx.Done():
			t.Fatal("no message")
			return ""
		}
	}
	got, done, ready := listen(sub)
	otherGot, _, otherReady := listen(other)
	for _, r := range []chan struct{}{ready, otherReady} {
		select {
		case <-r:
		case <-ctx.Done():
			t.Fatal("never subscribed")
		}
	}
	for _, m := range []string{"one", "two"} {
		if err := pub.Publish(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := next(got), next(got); a != "one" || b != "two" {
		t.Errorf("received %q, %q; want one, two in order", a, b)
	}
	if err := otherPub.Publish(ctx, []byte("elsewhere")); err != nil {
		t.Fatal(err)
	}
	if m := next(otherGot); m != "elsewhere" {
		t.Errorf("other prefix received %q", m)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Receive after cancel: %v, want nil", err)
	}
	select {
	case m := <-got:
		t.Errorf("a message of another prefix arrived: %q", m)
	default:
	}
}
