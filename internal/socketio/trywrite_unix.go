//go:build unix

package socketio

import (
	"syscall"
)

// canTryWrite says whether tryWriteFD can write without blocking here.
const canTryWrite = true

// tryWriteFD makes one write(2) of b on fd, a non-blocking descriptor,
// and returns how much it took: 0 when it would block.
func tryWriteFD(fd int, b []byte) (int, error) {
	for {
		n, err := writeFD(fd, b)
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, nil
		}
		return 0, err
	}
}
