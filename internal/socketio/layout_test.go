package socketio

import (
	"testing"
	"unsafe"
)

// TestSocketHotLine: the fields a delivery touches are in the Socket's
// first 64 bytes, and the struct's size is a multiple of 64, so that they
// are one cache line of every socket (on 64-bit platforms).
func TestSocketHotLine(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("laid out for 64-bit platforms")
	}
	var s Socket
	if size := unsafe.Sizeof(s); size%64 != 0 {
		t.Errorf("Socket is %d bytes, not a multiple of 64: adjust its padding", size)
	}
	if end := unsafe.Offsetof(s.one) + unsafe.Sizeof(s.one); end > 64 {
		t.Errorf("the fields of a delivery end at byte %d, past the first line", end)
	}
}
