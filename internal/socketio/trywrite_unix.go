//go:build unix

package socketio

import (
	"errors"
	"syscall"
)

// canTryWrite says whether tryWrite can write without blocking here.
const canTryWrite = true

// tryWrite makes one write(2) of b on raw's non-blocking descriptor and
// returns how much it took: 0 when it would block.
func tryWrite(raw syscall.RawConn, b []byte) (int, error) {
	var n int
	var werr error
	err := raw.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if !errors.Is(werr, syscall.EINTR) {
				return true // done, whatever happened: never wait for the peer
			}
		}
	})
	if err != nil {
		return 0, err
	}
	switch {
	case errors.Is(werr, syscall.EAGAIN):
		return 0, nil
	case werr != nil:
		return 0, werr
	}
	return n, nil
}
