//go:build unix

package socketio

import (
	"net"
	"syscall"
	"testing"
)

// BenchmarkTryWrite is the write of one delivery when nothing coalesces
// (a socket hears of a create every 50 ms): one tryWrite of a 120-byte
// frame on a loopback TCP connection, whose peer drains it. Most of its
// time is the kernel's; run it under callgrind (which counts only the
// process's own instructions) to compare the Go side of two builds.
func BenchmarkTryWrite(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close()
	raw, err := server.(syscall.Conn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	craw, err := client.(syscall.Conn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	frame := make([]byte, 120)
	buf := make([]byte, 4096)
	w := newRawWriter()
	read := func(fd uintptr) { syscall.Read(int(fd), buf) }
	b.ReportAllocs()
	for b.Loop() {
		if n, err := w.tryWrite(raw, frame); n != len(frame) || err != nil {
			b.Fatalf("tryWrite = %d, %v", n, err)
		}
		// Loopback delivers within the write: the bytes are there to read.
		craw.Control(read)
	}
}
