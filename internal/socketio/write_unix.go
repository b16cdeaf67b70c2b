//go:build unix && !linux

package socketio

import "syscall"

// writeFD makes one write(2) of b on fd.
func writeFD(fd int, b []byte) (int, error) { return syscall.Write(fd, b) }
