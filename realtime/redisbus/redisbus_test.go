package redisbus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/realtime/redisbus"
)

// TestPublishReceive: what one Bus publishes reaches another's Receive on
// the same channel, not one on another channel; Receive returns nil once
// its context is done.
func TestPublishReceive(t *testing.T) {
	addr := testenv.Redis(t)
	prefix := testenv.Prefix()
	open := func(prefix string) *redisbus.Bus {
		b, err := redisbus.New(redisbus.Options{URL: "redis://" + addr, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	pub, sub, other, otherPub := open(prefix), open(prefix), open(prefix+"x"), open(prefix+"x")
	if sub.Channel() != prefix+"#bus" {
		t.Errorf("Channel() = %q", sub.Channel())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listen := func(b *redisbus.Bus) (chan string, chan error, chan struct{}) {
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
		t.Errorf("other channel received %q", m)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Receive after cancel: %v, want nil", err)
	}
	select {
	case m := <-got:
		t.Errorf("a message of another channel arrived: %q", m)
	default:
	}
	if _, err := redisbus.New(redisbus.Options{URL: "http://x"}); err == nil || !strings.Contains(err.Error(), "url") {
		t.Errorf("New with an http URL: %v", err)
	}
}
