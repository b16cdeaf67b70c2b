package socketio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Buffer sizes of an upgraded connection. net/http hands a hijacked
// connection 4 KiB read and write buffers, which coder/websocket keeps for
// the connection's life: 8 KiB of an idle socket's budget. Frame headers are
// small and large payloads bypass bufio, so smaller buffers cost little.
const (
	readBufferSize  = 1 << 10
	writeBufferSize = 2 << 10
)

// smallBuffers wraps the handshake's ResponseWriter so that the hijacked
// connection gets small bufio buffers.
type smallBuffers struct {
	http.ResponseWriter
	hj http.Hijacker
}

// Hijack hijacks the underlying connection and swaps its buffers, keeping
// any bytes already read past the handshake.
func (w smallBuffers) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := w.hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("flush handshake: %w", err)
	}
	br := bufio.NewReaderSize(conn, readBufferSize)
	if n := brw.Reader.Buffered(); n > 0 {
		// Bytes the client sent right after the handshake must stay buffered
		// in the new reader: websocket.Accept keeps only Buffered() bytes
		// when it resets the reader's source to the connection.
		early, _ := brw.Reader.Peek(n)
		br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(early)), conn), max(n, readBufferSize))
		if _, err := br.Peek(n); err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("buffer early bytes: %w", err)
		}
	}
	return conn, bufio.NewReadWriter(br, bufio.NewWriterSize(conn, writeBufferSize)), nil
}

// withSmallBuffers returns w wrapped, or w itself when it cannot hijack
// (websocket.Accept then reports the error).
func withSmallBuffers(w http.ResponseWriter) http.ResponseWriter {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return w
	}
	return smallBuffers{ResponseWriter: w, hj: hj}
}
