package socketio_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/skiffhq/skiff/internal/socketio"
)

// TestBytesRightAfterHandshake sends the upgrade request and the EIO=4
// CONNECT frame in one TCP write: the frame lands in the HTTP server's read
// buffer before the upgrade and must not be lost.
func TestBytesRightAfterHandshake(t *testing.T) {
	h := newHarness(t, socketio.Options{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.http.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	mask := [4]byte{1, 2, 3, 4}
	payload := []byte("40")
	frame := []byte{0x81, 0x80 | byte(len(payload)), mask[0], mask[1], mask[2], mask[3]}
	for i, c := range payload {
		frame = append(frame, c^mask[i%4])
	}
	req := fmt.Sprintf("GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"+
		"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n%s", frame)
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade status = %d", resp.StatusCode)
	}
	if s := h.next(t, "connect").socket; s.Protocol() != 4 {
		t.Errorf("Protocol() = %d, want 4", s.Protocol())
	}
}
