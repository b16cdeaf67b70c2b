package natsbus_test

import (
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/realtime"
	"github.com/skiffhq/skiff/realtime/bustest"
	"github.com/skiffhq/skiff/realtime/natsbus"
)

// TestPublishReceive: what one Bus publishes reaches another's Receive on
// the same channel, not one on another channel; Receive returns nil once
// its context is done.
func TestPublishReceive(t *testing.T) {
	url := testenv.NATS(t)
	prefix := testenv.Prefix()
	bustest.TestBus(t, prefix, func(t *testing.T, prefix string) realtime.Bus {
		b, err := natsbus.New(natsbus.Config{URL: url, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
	b, err := natsbus.New(natsbus.Config{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Subject() != prefix+".bus" {
		t.Errorf("Subject() = %q", b.Subject())
	}
	if _, err := natsbus.New(natsbus.Config{URL: url, Prefix: "a b"}); err == nil || !strings.Contains(err.Error(), "prefix") {
		t.Errorf("New with a prefix holding a space: %v", err)
	}
}
