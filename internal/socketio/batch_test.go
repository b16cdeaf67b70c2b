package socketio_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/socketio"
)

// Packets are written as pre-encoded WebSocket frames, several per write:
// every length encoding (7-bit, 16-bit, 64-bit) must reach a standard
// client intact and in order, also when queued together.
func TestQueuedFramesOfEverySize(t *testing.T) {
	h := newHarness(t, socketio.Options{})
	c := h.dial(t, 4)
	c.open(4)
	c.write("40")
	s := h.next(t, "connect").socket
	c.read() // the CONNECT answer

	var want []string
	for _, n := range []int{0, 1, 120, 126, 200, 65_530, 65_536, 70_000, 3} {
		payload, err := json.Marshal(strings.Repeat("x", n))
		if err != nil {
			t.Fatal(err)
		}
		p, err := socketio.EncodeEventRaw("size", payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(p); err != nil {
			t.Fatalf("Send(%d bytes) error = %v", n, err)
		}
		want = append(want, string(p.Bytes()))
	}
	for i, w := range want {
		if got := c.read(); got != w {
			t.Fatalf("frame %d: read %d bytes %.40q..., want %d bytes %.40q...", i, len(got), got, len(w), w)
		}
	}
	// The connection still works both ways after the batch.
	c.write(`42["ping"]`)
	if r := h.next(t, "event"); r.event != "ping" {
		t.Errorf("event after the batch = %q, want ping", r.event)
	}
}

// A peer that reads nothing for a while makes the flushers' non-blocking
// writes stop part-way; the socket's own writer takes over from the byte
// where they stopped. Every frame must still arrive whole and in order.
func TestPartialWritesKeepOrder(t *testing.T) {
	const n = 20_000 // ~20 MB: far beyond the loopback socket buffers
	h := newHarness(t, socketio.Options{SendQueue: n + 10})
	c := h.dial(t, 4)
	c.open(4)
	c.write("40")
	s := h.next(t, "connect").socket
	c.read() // the CONNECT answer

	pad := strings.Repeat("x", 1000)
	want := make([]string, n)
	for i := range n {
		p, err := socketio.EncodeEventRaw("seq", json.RawMessage(fmt.Sprintf(`"%d %s"`, i, pad)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(p); err != nil {
			t.Fatalf("Send #%d error = %v", i, err)
		}
		want[i] = string(p.Bytes())
		if i%32 == 31 {
			// Small batches, so that the flushers (not a batch too large
			// for them) meet the full socket buffer.
			time.Sleep(50 * time.Microsecond)
		}
	}
	for i, w := range want {
		if got := c.read(); got != w {
			t.Fatalf("frame %d: read %.30q..., want %.30q...", i, got, w)
		}
	}
	if err := s.Emit("after", 1); err != nil {
		t.Fatal(err)
	}
	c.expect(`42["after",1]`)
}
