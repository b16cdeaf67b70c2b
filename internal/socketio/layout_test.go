package socketio

import (
	"testing"
	"unsafe"
)

// TestSocketHotLine: the fields a delivery touches are the Socket's first
// 64 bytes and its batchWriter, the next 64, and the struct's size is a
// multiple of 128 and an allocation size class, so that they are one
// aligned pair of cache lines of every socket (on 64-bit platforms).
func TestSocketHotLine(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("laid out for 64-bit platforms")
	}
	var s Socket
	if size := unsafe.Sizeof(s); size != 384 {
		t.Errorf("Socket is %d bytes, not 384 (3 × 128, a size class): adjust its padding", size)
	}
	if end := unsafe.Offsetof(s.one) + unsafe.Sizeof(s.one); end > 64 {
		t.Errorf("the Socket's fields of a delivery end at byte %d, past the first line", end)
	}
	if off, size := unsafe.Offsetof(s.out), unsafe.Sizeof(s.out); off != 64 || size > 64 {
		t.Errorf("the batchWriter is bytes %d to %d, not the second line", off, off+size)
	}
}
