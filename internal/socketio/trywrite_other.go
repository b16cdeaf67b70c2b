//go:build !unix

package socketio

import (
	"errors"
	"syscall"
)

// canTryWrite says whether tryWrite can write without blocking here: no,
// so every batch goes to the socket's writer goroutine.
const canTryWrite = false

// rawWriter would make non-blocking writes; here it cannot.
type rawWriter struct{}

func newRawWriter() *rawWriter { return &rawWriter{} }

func (*rawWriter) tryWrite(syscall.RawConn, []byte) (int, error) {
	return 0, errors.New("non-blocking write not supported")
}
