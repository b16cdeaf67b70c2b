package redisbus_test

import (
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/realtime"
	"github.com/skiffhq/skiff/realtime/bustest"
	"github.com/skiffhq/skiff/realtime/redisbus"
)

// TestPublishReceive: what one Bus publishes reaches another's Receive on
// the same channel, not one on another channel; Receive returns nil once
// its context is done.
func TestPublishReceive(t *testing.T) {
	addr := testenv.Redis(t)
	prefix := testenv.Prefix()
	bustest.TestBus(t, prefix, func(t *testing.T, prefix string) realtime.Bus {
		b, err := redisbus.New(redisbus.Config{URL: "redis://" + addr, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
	b, err := redisbus.New(redisbus.Config{URL: "redis://" + addr, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Channel() != prefix+"#bus" {
		t.Errorf("Channel() = %q", b.Channel())
	}
	if _, err := redisbus.New(redisbus.Config{URL: "http://x"}); err == nil || !strings.Contains(err.Error(), "url") {
		t.Errorf("New with an http URL: %v", err)
	}
}
