//go:build unix

package socketio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
)

// BenchmarkTryWrite is the write of one delivery when nothing coalesces
// (a socket hears of a create every 50 ms), as a flusher makes it: a batch
// of one 120-byte packet written by batchWriter.tryWriteLocked on a
// loopback TCP connection, whose peer drains it. Most of its
// time is the kernel's; run it under callgrind (which counts only the
// process's own instructions) to compare the Go side of two builds.
func BenchmarkTryWrite(b *testing.B) {
	client, server := loopbackPair(b)
	craw, err := client.(syscall.Conn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	pool := heldBuffers()
	var out batchWriter
	out.init(server, pool)
	batch := []*Packet{newPacket(make([]byte, 118))}
	buf := make([]byte, 4096)
	read := func(fd uintptr) { syscall.Read(int(fd), buf) }
	b.ReportAllocs()
	for b.Loop() {
		out.mu.Lock()
		if done, err := out.tryWriteLocked(batch); !done || err != nil {
			b.Fatalf("tryWriteLocked = %v, %v", done, err)
		}
		// Loopback delivers within the write: the bytes are there to read.
		craw.Control(read)
	}
}

// TestLonePacketPartialWrite: a lone packet the connection does not take
// at once is written from the packet itself, and the rest is held and
// written by release, in order.
func TestLonePacketPartialWrite(t *testing.T) {
	client, server := loopbackPair(t)
	pool := heldBuffers()
	var out batchWriter
	out.init(server, pool)
	frame := make([]byte, 16<<20) // far beyond the loopback socket buffers
	for i := range frame {
		frame[i] = byte(i % 251)
	}
	p := newPacket(frame)
	out.mu.Lock()
	done, err := out.tryWriteLocked([]*Packet{p})
	if err != nil || done {
		t.Fatalf("tryWriteLocked(16 MiB) = %v, %v, want a partial write", done, err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(client, int64(len(p.ws))))
		got <- b
	}()
	if err := out.release(); err != nil {
		t.Fatalf("release: %v", err)
	}
	if b := <-got; !bytes.Equal(b, p.ws) {
		t.Errorf("read %d bytes, not the packet's %d in order", len(b), len(p.ws))
	}
}

// TestClosedConnNotWritten: once the connection coder/websocket holds is
// closed, a flusher's write fails without touching the descriptor number,
// which the kernel may already have given to another file.
func TestClosedConnNotWritten(t *testing.T) {
	_, server := loopbackPair(t)
	pool := heldBuffers()
	var out batchWriter
	out.init(server, pool)
	if out.fd < 0 {
		t.Fatal("no descriptor kept for a TCP connection")
	}
	if err := (&guardedConn{Conn: server, w: &out}).Close(); err != nil {
		t.Fatal(err)
	}
	// The number is free again: a new file may get it.
	f, err := os.CreateTemp(t.TempDir(), "reuse")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out.mu.Lock()
	done, err := out.tryWriteLocked([]*Packet{newPacket([]byte("x"))})
	if done || !errors.Is(err, net.ErrClosed) {
		t.Errorf("tryWriteLocked after Close = %v, %v, want net.ErrClosed", done, err)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != 0 {
		t.Errorf("the file that may have the old descriptor number holds %d bytes (%v)", fi.Size(), err)
	}
}

// loopbackPair returns the two ends of a loopback TCP connection, closed
// when the test ends.
func loopbackPair(tb testing.TB) (client, server net.Conn) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	server, err = ln.Accept()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { server.Close() })
	return client, server
}

// heldBuffers is a batchWriter's pool of buffers, as the Server's.
func heldBuffers() *sync.Pool {
	return &sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}
}

// TestTryWriteFDContract checks what the flushers rely on: a write to a
// full non-blocking descriptor takes 0 bytes and reports no error, a
// partial write reports what it took, and a write to a connection whose
// peer is gone is an error.
func TestTryWriteFDContract(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	total := 0
	for i := 0; ; i++ {
		n, err := tryWriteFD(fds[0], chunk)
		if err != nil {
			t.Fatalf("write %d: error %v after %d bytes", i, err, total)
		}
		if n < 0 || n > len(chunk) {
			t.Fatalf("write %d took %d of %d bytes", i, n, len(chunk))
		}
		total += n
		if n == 0 {
			break // full: would block
		}
		if i > 10_000 {
			t.Fatal("the descriptor never filled")
		}
	}
	if total == 0 {
		t.Fatal("nothing was written before the descriptor filled")
	}
	syscall.Close(fds[1])
	if _, err := tryWriteFD(fds[0], chunk[:1]); err == nil {
		t.Fatal("a write to a connection whose peer closed reported no error")
	}
}
