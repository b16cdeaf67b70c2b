package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// wsConn is a minimal WebSocket client connection (RFC 6455): text
// messages in single frames, which is all a Skiff server sends. It is
// hand-written rather than coder/websocket so that the load client spends
// as little CPU as possible per message (no locks, no allocation), leaving
// the shared cores to the server being measured. Reads and writes must each
// come from one goroutine at a time.
type wsConn struct {
	c   net.Conn
	br  *bufio.Reader
	buf []byte // the last message read
	out []byte // frame being written
}

// errClosed is returned by read once the server sent a close frame.
var errClosed = errors.New("websocket closed by the server")

// dialWS opens a WebSocket connection to rawURL (ws://host:port/path?query).
func dialWS(ctx context.Context, rawURL string) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	var k [16]byte
	rand.Read(k[:])
	key := base64.StdEncoding.EncodeToString(k[:])
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
		"\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		c.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(c, 4<<10)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	resp.Body.Close()
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		c.Close()
		return nil, fmt.Errorf("handshake: %s", resp.Status)
	}
	c.SetDeadline(time.Time{})
	return &wsConn{c: c, br: br, buf: make([]byte, 0, 512)}, nil
}

// read returns the next text message, valid until the next read. It
// answers pings itself.
func (w *wsConn) read() ([]byte, error) {
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.br, h[:]); err != nil {
			return nil, err
		}
		fin, op, n := h[0]&0x80 != 0, h[0]&0x0f, uint64(h[1]&0x7f)
		if h[1]&0x80 != 0 {
			return nil, errors.New("masked frame from the server")
		}
		switch n {
		case 126:
			var e [2]byte
			if _, err := io.ReadFull(w.br, e[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(e[:]))
		case 127:
			var e [8]byte
			if _, err := io.ReadFull(w.br, e[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(e[:])
		}
		if n > 64<<20 {
			return nil, fmt.Errorf("frame of %d bytes", n)
		}
		if uint64(cap(w.buf)) < n {
			w.buf = make([]byte, n)
		}
		b := w.buf[:n]
		if _, err := io.ReadFull(w.br, b); err != nil {
			return nil, err
		}
		switch op {
		case 1:
			if !fin {
				return nil, errors.New("fragmented message")
			}
			return b, nil
		case 8:
			return nil, errClosed
		case 9:
			if err := w.write(10, b); err != nil {
				return nil, err
			}
		case 10:
		default:
			return nil, fmt.Errorf("unexpected frame opcode %d", op)
		}
	}
}

// writeText sends a text message.
func (w *wsConn) writeText(p []byte) error { return w.write(1, p) }

// write sends one masked frame, as a client must.
func (w *wsConn) write(op byte, p []byte) error {
	b := append(w.out[:0], 0x80|op)
	switch n := len(p); {
	case n <= 125:
		b = append(b, 0x80|byte(n))
	case n <= 0xffff:
		b = append(b, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	b = append(b, mask[:]...)
	start := len(b)
	b = append(b, p...)
	for i := range p {
		b[start+i] ^= mask[i%4]
	}
	w.out = b
	_, err := w.c.Write(b)
	return err
}

// close drops the connection.
func (w *wsConn) close() { w.c.Close() }
