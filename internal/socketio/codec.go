package socketio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// EngineType is an Engine.IO packet type, sent as the first character of a
// WebSocket text frame. The values are the same in EIO v3 and v4.
type EngineType byte

// Engine.IO packet types.
const (
	EngineOpen    EngineType = '0'
	EngineClose   EngineType = '1'
	EnginePing    EngineType = '2'
	EnginePong    EngineType = '3'
	EngineMessage EngineType = '4'
	EngineUpgrade EngineType = '5'
	EngineNoop    EngineType = '6'
)

// PacketType is a Socket.IO packet type, the first character of an Engine.IO
// message payload. Type 4 is ERROR in protocol v4 and CONNECT_ERROR in v5.
type PacketType byte

// Socket.IO packet types.
const (
	PacketConnect      PacketType = '0'
	PacketDisconnect   PacketType = '1'
	PacketEvent        PacketType = '2'
	PacketAck          PacketType = '3'
	PacketConnectError PacketType = '4'
	PacketBinaryEvent  PacketType = '5'
	PacketBinaryAck    PacketType = '6'
)

// NoID is Message.ID when the packet carries no ack id.
const NoID int64 = -1

// maxAckID bounds ack ids so that they fit in int64 and in a JavaScript number.
const maxAckID = 1<<53 - 1

// Frame is one decoded Engine.IO packet (one WebSocket text frame).
type Frame struct {
	Type EngineType
	// Data is the Engine.IO payload after the type byte, e.g. "probe" for
	// "2probe". It aliases the decoded input. Empty for EngineMessage, whose
	// payload is decoded into Message.
	Data []byte
	// Message is the Socket.IO packet when Type is EngineMessage, else nil.
	Message *Message
}

// Message is one Socket.IO packet.
type Message struct {
	Type PacketType
	// Namespace is "/" unless the packet names another one; a query string
	// sent by socket.io-client 2.x ("/admin?x=1") is kept in Query.
	Namespace string
	Query     string
	// Attachments is the number of binary attachments of a binary packet.
	Attachments int
	// ID is the ack id, or NoID.
	ID int64
	// Data is the raw JSON payload, nil when absent. It aliases the input.
	Data json.RawMessage
}

// DecodeFrame decodes one WebSocket text frame into an Engine.IO packet and,
// for messages, the Socket.IO packet it carries. It validates the JSON
// payload's shape for the packet type (an event is a non-empty array whose
// first element is a string, an ack is an array, a connect payload is an
// object). Errors wrap ErrMalformed. The result aliases b.
func DecodeFrame(b []byte) (Frame, error) {
	if len(b) == 0 {
		return Frame{}, fmt.Errorf("empty frame: %w", ErrMalformed)
	}
	f := Frame{Type: EngineType(b[0])}
	switch f.Type {
	case EngineOpen, EngineClose, EnginePing, EnginePong, EngineUpgrade, EngineNoop:
		f.Data = b[1:]
		return f, nil
	case EngineMessage:
		m, err := DecodeMessage(b[1:])
		if err != nil {
			return Frame{}, err
		}
		f.Message = &m
		return f, nil
	}
	return Frame{}, fmt.Errorf("engine.io packet type %q: %w", b[0], ErrMalformed)
}

// DecodeMessage decodes a Socket.IO packet (an Engine.IO message payload).
// Errors wrap ErrMalformed. The result aliases b.
func DecodeMessage(b []byte) (Message, error) {
	m := Message{Namespace: "/", ID: NoID}
	if len(b) == 0 {
		return m, fmt.Errorf("empty socket.io packet: %w", ErrMalformed)
	}
	m.Type = PacketType(b[0])
	if m.Type < PacketConnect || m.Type > PacketBinaryAck {
		return m, fmt.Errorf("socket.io packet type %q: %w", b[0], ErrMalformed)
	}
	i := 1
	if m.Type == PacketBinaryEvent || m.Type == PacketBinaryAck {
		j := bytes.IndexByte(b[i:], '-')
		if j <= 0 || j > 6 {
			return m, fmt.Errorf("binary attachment count: %w", ErrMalformed)
		}
		n, err := strconv.Atoi(string(b[i : i+j]))
		if err != nil || n < 0 {
			return m, fmt.Errorf("binary attachment count %q: %w", b[i:i+j], ErrMalformed)
		}
		m.Attachments = n
		i += j + 1
	}
	if i < len(b) && b[i] == '/' {
		j := bytes.IndexByte(b[i:], ',')
		end := len(b)
		if j >= 0 {
			end = i + j
		}
		nsp := string(b[i:end])
		if q := bytes.IndexByte(b[i:end], '?'); q >= 0 {
			nsp, m.Query = string(b[i:i+q]), string(b[i+q+1:end])
		}
		m.Namespace = nsp
		i = end
		if j >= 0 {
			i++
		}
	}
	if start := i; i < len(b) && isDigit(b[i]) {
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i-start > 16 {
			return m, fmt.Errorf("ack id too long: %w", ErrMalformed)
		}
		id, err := strconv.ParseInt(string(b[start:i]), 10, 64)
		if err != nil || id > maxAckID {
			return m, fmt.Errorf("ack id %q: %w", b[start:i], ErrMalformed)
		}
		m.ID = id
	}
	if i < len(b) {
		m.Data = json.RawMessage(b[i:])
	}
	if err := m.validate(); err != nil {
		return m, err
	}
	return m, nil
}

// validate checks the payload shape socket.io-parser accepts for each type.
func (m *Message) validate() error {
	if m.Data != nil && !json.Valid(m.Data) {
		return fmt.Errorf("socket.io payload is not JSON: %w", ErrMalformed)
	}
	first := firstByte(m.Data)
	switch m.Type {
	case PacketConnect:
		if m.Data != nil && first != '{' {
			return fmt.Errorf("connect payload must be an object: %w", ErrMalformed)
		}
	case PacketDisconnect:
		// socket.io ignores any payload here.
	case PacketEvent, PacketBinaryEvent:
		if _, _, err := m.Event(); err != nil {
			return err
		}
	case PacketAck, PacketBinaryAck:
		if first != '[' || m.ID == NoID {
			return fmt.Errorf("ack needs an id and an array payload: %w", ErrMalformed)
		}
	case PacketConnectError:
		if m.Data == nil {
			return fmt.Errorf("connect error without payload: %w", ErrMalformed)
		}
	}
	return nil
}

// Event splits an event payload into its name and arguments. Errors wrap
// ErrMalformed.
func (m *Message) Event() (string, []json.RawMessage, error) {
	if firstByte(m.Data) != '[' {
		return "", nil, fmt.Errorf("event payload must be an array: %w", ErrMalformed)
	}
	all, ok := splitArray(m.Data)
	if !ok || len(all) == 0 {
		return "", nil, fmt.Errorf("event payload must be a non-empty array: %w", ErrMalformed)
	}
	name, ok := unquote(all[0])
	if !ok {
		return "", nil, fmt.Errorf("event name must be a string: %w", ErrMalformed)
	}
	return name, all[1:], nil
}

// splitArray returns the elements of a JSON array as json.Unmarshal into
// []json.RawMessage would, without reflection: it runs on every socket's
// reader goroutine, whose stack stays small only if nothing deep runs on it
// (an idle socket's budget). ok is false when b is not valid JSON or not an
// array.
func splitArray(b []byte) (elems []json.RawMessage, ok bool) {
	if !json.Valid(b) {
		return nil, false
	}
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '[' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	if b[i] == ']' {
		return []json.RawMessage{}, true
	}
	for {
		end := valueEnd(b, i)
		elems = append(elems, json.RawMessage(b[i:end:end]))
		i = skipSpace(b, end)
		if b[i] == ']' {
			return elems, true
		}
		i = skipSpace(b, i+1) // the comma
	}
}

// valueEnd returns the index just past the JSON value starting at b[i]; b
// must be valid JSON.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of a number or literal
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		default:
			if depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
				return i // the end of a number or literal
			}
		}
	}
	return i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// unquote decodes a JSON string value, as json.Unmarshal would.
func unquote(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// AppendFrame appends m encoded as an Engine.IO message frame ("4" followed
// by the Socket.IO packet) to dst. Data must be valid JSON or nil.
func (m *Message) AppendFrame(dst []byte) []byte {
	dst = append(dst, byte(EngineMessage), byte(m.Type))
	if m.Type == PacketBinaryEvent || m.Type == PacketBinaryAck {
		dst = strconv.AppendInt(dst, int64(m.Attachments), 10)
		dst = append(dst, '-')
	}
	if (m.Namespace != "" && m.Namespace != "/") || m.Query != "" {
		nsp := m.Namespace
		if nsp == "" {
			nsp = "/"
		}
		dst = append(dst, nsp...)
		if m.Query != "" {
			dst = append(dst, '?')
			dst = append(dst, m.Query...)
		}
		dst = append(dst, ',') // socket.io-parser always writes it
	}
	if m.ID != NoID {
		dst = strconv.AppendInt(dst, m.ID, 10)
	}
	return append(dst, m.Data...)
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
