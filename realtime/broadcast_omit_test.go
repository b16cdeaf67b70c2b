package realtime_test

import (
	"context"
	"testing"
)

// TestBroadcastSeveralRoomsOmits: a broadcast to several rooms skips the
// omitted socket in every one of them and reaches each other member once.
func TestBroadcastSeveralRoomsOmits(t *testing.T) {
	h, a, b := newHub(t)
	c := &conn{id: "c"}
	h.Register(c)
	ctx := context.Background()
	h.Join("a", "r1", "r2")
	h.Join("b", "r1", "r2", "r3")
	h.Join("c", "r3")
	if err := h.Broadcast(ctx, []string{"r1", "r2", "r3"}, "message", "hi", "b"); err != nil {
		t.Fatal(err)
	}
	if got := a.take(); len(got) != 1 {
		t.Errorf("a (in r1 and r2) got %q, want one message", got)
	}
	if got := b.take(); len(got) != 0 {
		t.Errorf("b, omitted, got %q", got)
	}
	if got := c.take(); len(got) != 1 {
		t.Errorf("c (in r3) got %q, want one message", got)
	}
	if err := h.Broadcast(ctx, []string{"r3", "r1"}, "message", "hi", "c"); err != nil {
		t.Fatal(err)
	}
	if len(a.take()) != 1 || len(b.take()) != 1 || len(c.take()) != 0 {
		t.Errorf("omitting c: a, b, c did not get 1, 1, 0 messages")
	}
}
