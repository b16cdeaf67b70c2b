//go:build !unix

package socketio

import "errors"

// canTryWrite says whether tryWriteFD can write without blocking here: no,
// so every batch goes to the socket's writer goroutine.
const canTryWrite = false

func tryWriteFD(int, []byte) (int, error) {
	return 0, errors.New("non-blocking write not supported")
}
