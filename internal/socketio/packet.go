package socketio

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
)

// Packet is a pre-encoded WebSocket frame, ready to be queued on any number
// of sockets of either protocol version: an event on the default namespace
// is encoded identically by Socket.IO v4 and v5 ("42[...]"). A Packet is
// immutable and safe for concurrent use; encode a broadcast once with
// EncodeEvent or EncodeEventRaw and pass it to Socket.Send for each target.
type Packet struct {
	ws    []byte // the whole WebSocket frame: header, then frame
	frame []byte // the Engine.IO packet, the frame's payload
}

// newPacket returns the Packet of an Engine.IO frame. The WebSocket frame
// header is encoded here, once for every socket the packet goes to: a
// server's frames are not masked, so the bytes on the wire are the same for
// all of them and a socket's writer only copies them (see Socket.write).
// It is the header coder/websocket writes for a text message without
// compression: FIN and opcode 1, then the shortest length encoding.
func newPacket(frame []byte) *Packet {
	ws := make([]byte, 0, 10+len(frame))
	ws = append(ws, 0x81)
	switch n := len(frame); {
	case n <= 125:
		ws = append(ws, byte(n))
	case n <= 0xffff:
		ws = append(ws, 126)
		ws = binary.BigEndian.AppendUint16(ws, uint16(n))
	default:
		ws = append(ws, 127)
		ws = binary.BigEndian.AppendUint64(ws, uint64(n))
	}
	h := len(ws)
	ws = append(ws, frame...)
	return &Packet{ws: ws, frame: ws[h:]}
}

// Bytes returns the encoded frame. The caller must not modify it.
func (p *Packet) Bytes() []byte { return p.frame }

// EncodeEvent encodes an event on the default namespace with args encoded
// by encoding/json. It returns the json.Marshal error, wrapped, if any
// argument cannot be encoded.
func EncodeEvent(event string, args ...any) (*Packet, error) {
	b, err := appendEvent(make([]byte, 0, 64), event, args)
	if err != nil {
		return nil, err
	}
	return newPacket(b), nil
}

// EncodeEventRaw encodes an event on the default namespace whose only
// argument is payload, already JSON-encoded. It returns an error wrapping
// ErrMalformed if payload is not valid JSON.
func EncodeEventRaw(event string, payload json.RawMessage) (*Packet, error) {
	if !json.Valid(payload) {
		return nil, fmt.Errorf("event %q payload is not JSON: %w", event, ErrMalformed)
	}
	name, err := json.Marshal(event)
	if err != nil {
		return nil, fmt.Errorf("encode event name: %w", err)
	}
	b := make([]byte, 0, len(name)+len(payload)+5)
	b = append(b, byte(EngineMessage), byte(PacketEvent), '[')
	b = append(b, name...)
	b = append(b, ',')
	b = append(b, payload...)
	b = append(b, ']')
	return newPacket(b), nil
}

func appendEvent(dst []byte, event string, args []any) ([]byte, error) {
	dst = append(dst, byte(EngineMessage), byte(PacketEvent))
	all := make([]any, 0, len(args)+1)
	all = append(all, event)
	all = append(all, args...)
	return appendJSON(dst, all)
}

// encodeAck encodes the ack answering id ("43<id>[...]").
func encodeAck(id int64, args []any) ([]byte, error) {
	dst := make([]byte, 0, 64)
	dst = append(dst, byte(EngineMessage), byte(PacketAck))
	dst = strconv.AppendInt(dst, id, 10)
	if args == nil {
		args = []any{}
	}
	return appendJSON(dst, args)
}

func appendJSON(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode socket.io payload: %w", err)
	}
	return append(dst, b...), nil
}

// openFrame is the Engine.IO handshake packet. maxPayload exists only in v4.
func openFrame(eio int, sid string, o *Options) []byte {
	type open struct {
		SID          string   `json:"sid"`
		Upgrades     []string `json:"upgrades"`
		PingInterval int64    `json:"pingInterval"`
		PingTimeout  int64    `json:"pingTimeout"`
		MaxPayload   int64    `json:"maxPayload,omitempty"`
	}
	v := open{
		SID:          sid,
		Upgrades:     []string{},
		PingInterval: o.PingInterval.Milliseconds(),
		PingTimeout:  o.PingTimeout.Milliseconds(),
	}
	if eio == 4 {
		v.MaxPayload = o.MaxMessageBytes
	}
	b, _ := json.Marshal(v) // cannot fail: strings and numbers only
	return append([]byte{byte(EngineOpen)}, b...)
}

// connectFrame acknowledges a connection to the default namespace: a bare
// "40" in protocol v4, "40{"sid":...}" in v5.
func connectFrame(eio int, sid string) []byte {
	if eio == 3 {
		return []byte("40")
	}
	b, _ := json.Marshal(struct {
		SID string `json:"sid"`
	}{sid})
	return append([]byte("40"), b...)
}

// connectErrorFrame refuses a namespace: v4 ERROR carries a string, v5
// CONNECT_ERROR an object with a message.
func connectErrorFrame(eio int, nsp, msg string) []byte {
	var data []byte
	if eio == 3 {
		data, _ = json.Marshal(msg)
	} else {
		data, _ = json.Marshal(struct {
			Message string `json:"message"`
		}{msg})
	}
	m := Message{Type: PacketConnectError, Namespace: nsp, ID: NoID, Data: data}
	return m.AppendFrame(nil)
}

// Fixed frames: Socket.IO DISCONNECT of "/", Engine.IO ping.
const (
	frameDisconnect = "41"
	framePing       = "2"
)
