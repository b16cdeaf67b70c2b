package socketio_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/internal/socketio"
)

func TestDecodeFrame(t *testing.T) {
	msg := func(m socketio.Message) *socketio.Message {
		if m.Namespace == "" {
			m.Namespace = "/"
		}
		return &m
	}
	tests := []struct {
		name string
		in   string
		want socketio.Frame
	}{
		{"open", `0{"sid":"x"}`, socketio.Frame{Type: socketio.EngineOpen, Data: []byte(`{"sid":"x"}`)}},
		{"close", "1", socketio.Frame{Type: socketio.EngineClose, Data: []byte{}}},
		{"ping", "2", socketio.Frame{Type: socketio.EnginePing, Data: []byte{}}},
		{"ping probe", "2probe", socketio.Frame{Type: socketio.EnginePing, Data: []byte("probe")}},
		{"pong", "3", socketio.Frame{Type: socketio.EnginePong, Data: []byte{}}},
		{"upgrade", "5", socketio.Frame{Type: socketio.EngineUpgrade, Data: []byte{}}},
		{"noop", "6", socketio.Frame{Type: socketio.EngineNoop, Data: []byte{}}},
		{"connect v4 implicit", "40", socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnect, ID: socketio.NoID})}},
		{"connect v5 auth", `40{"token":"abc"}`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnect, ID: socketio.NoID, Data: json.RawMessage(`{"token":"abc"}`)})}},
		{"connect v5 server answer", `40{"sid":"abc"}`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnect, ID: socketio.NoID, Data: json.RawMessage(`{"sid":"abc"}`)})}},
		{"connect namespace", "40/admin,", socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnect, Namespace: "/admin", ID: socketio.NoID})}},
		{"connect namespace no comma", "40/admin", socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnect, Namespace: "/admin", ID: socketio.NoID})}},
		{"connect namespace v4 query", "40/admin?token=1,", socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnect, Namespace: "/admin", Query: "token=1", ID: socketio.NoID})}},
		{"disconnect", "41", socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketDisconnect, ID: socketio.NoID})}},
		{"disconnect namespace", "41/admin,", socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketDisconnect, Namespace: "/admin", ID: socketio.NoID})}},
		{"event", `42["hello",1]`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketEvent, ID: socketio.NoID, Data: json.RawMessage(`["hello",1]`)})}},
		{"event with ack id", `4212["get",{"url":"/user"}]`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketEvent, ID: 12, Data: json.RawMessage(`["get",{"url":"/user"}]`)})}},
		{"event namespace ack", `42/admin,7["x"]`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketEvent, Namespace: "/admin", ID: 7, Data: json.RawMessage(`["x"]`)})}},
		{"ack", `433[{"statusCode":200}]`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketAck, ID: 3, Data: json.RawMessage(`[{"statusCode":200}]`)})}},
		{"ack empty", `430[]`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketAck, ID: 0, Data: json.RawMessage(`[]`)})}},
		{"connect error v4", `44/admin,"Invalid namespace"`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnectError, Namespace: "/admin", ID: socketio.NoID, Data: json.RawMessage(`"Invalid namespace"`)})}},
		{"connect error v5", `44/admin,{"message":"Invalid namespace"}`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketConnectError, Namespace: "/admin", ID: socketio.NoID, Data: json.RawMessage(`{"message":"Invalid namespace"}`)})}},
		{"binary event", `451-["up",{"_placeholder":true,"num":0}]`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketBinaryEvent, Attachments: 1, ID: socketio.NoID, Data: json.RawMessage(`["up",{"_placeholder":true,"num":0}]`)})}},
		{"binary ack", `461-/admin,5[{"_placeholder":true,"num":0}]`, socketio.Frame{Type: socketio.EngineMessage,
			Message: msg(socketio.Message{Type: socketio.PacketBinaryAck, Attachments: 1, Namespace: "/admin", ID: 5, Data: json.RawMessage(`[{"_placeholder":true,"num":0}]`)})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := socketio.DecodeFrame([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeFrame(%q) error = %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeFrame(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if got.Message != nil {
				if enc := string(got.Message.AppendFrame(nil)); enc != tt.in && tt.in != "40/admin" {
					t.Errorf("AppendFrame(DecodeFrame(%q)) = %q", tt.in, enc)
				}
			}
		})
	}
}

func TestDecodeFrameMalformed(t *testing.T) {
	tests := []string{
		"",
		"7",
		"x",
		"4",
		"47",
		"4x",
		`42`,
		`42{"a":1}`,
		`42[]`,
		`42[1,2]`,
		`42["a"`,
		`42["a"]junk`,
		`43["a"]`,
		`431{"a":1}`,
		`40"str"`,
		`40[1]`,
		`44`,
		`45["a"]`,
		`45x-["a"]`,
		`45-1["a"]`,
		`4299999999999999999999["a"]`,
		`429007199254740993["a"]`,
	}
	for _, in := range tests {
		if got, err := socketio.DecodeFrame([]byte(in)); !errors.Is(err, socketio.ErrMalformed) {
			t.Errorf("DecodeFrame(%q) = %+v, %v; want ErrMalformed", in, got, err)
		}
	}
}

func TestMessageEvent(t *testing.T) {
	f, err := socketio.DecodeFrame([]byte(`423["post",{"url":"/user","data":{"a":[1,2]}},null]`))
	if err != nil {
		t.Fatal(err)
	}
	name, args, err := f.Message.Event()
	if err != nil {
		t.Fatalf("Event() error = %v", err)
	}
	want := []json.RawMessage{json.RawMessage(`{"url":"/user","data":{"a":[1,2]}}`), json.RawMessage(`null`)}
	if name != "post" || !cmp.Equal(args, want) {
		t.Errorf("Event() = %q, %s; want post, %s", name, args, want)
	}
}

func TestEncodeEvent(t *testing.T) {
	tests := []struct {
		event string
		args  []any
		want  string
	}{
		{"message", nil, `42["message"]`},
		{"user", []any{map[string]any{"verb": "created", "id": 1}}, `42["user",{"id":1,"verb":"created"}]`},
		{"a\"b", []any{1, "x", nil}, `42["a\"b",1,"x",null]`},
	}
	for _, tt := range tests {
		p, err := socketio.EncodeEvent(tt.event, tt.args...)
		if err != nil {
			t.Fatalf("EncodeEvent(%q) error = %v", tt.event, err)
		}
		if got := string(p.Bytes()); got != tt.want {
			t.Errorf("EncodeEvent(%q, %v) = %s, want %s", tt.event, tt.args, got, tt.want)
		}
	}
	if _, err := socketio.EncodeEvent("x", make(chan int)); err == nil {
		t.Error("EncodeEvent(chan) error = nil, want a json error")
	}
}

func TestEncodeEventRaw(t *testing.T) {
	p, err := socketio.EncodeEventRaw("user", json.RawMessage(`{"verb":"updated","id":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(p.Bytes()), `42["user",{"verb":"updated","id":2}]`; got != want {
		t.Errorf("EncodeEventRaw = %s, want %s", got, want)
	}
	if _, err := socketio.DecodeFrame(p.Bytes()); err != nil {
		t.Errorf("DecodeFrame(EncodeEventRaw) error = %v", err)
	}
	for _, bad := range []string{``, `{`, `1 2`} {
		if _, err := socketio.EncodeEventRaw("x", json.RawMessage(bad)); !errors.Is(err, socketio.ErrMalformed) {
			t.Errorf("EncodeEventRaw(%q) error = %v, want ErrMalformed", bad, err)
		}
	}
}

func FuzzDecodePacket(f *testing.F) {
	for _, s := range []string{"0", "2probe", "3", "40", `40{"token":1}`, "41", `42["a",1]`, `421["get",{}]`,
		`43[1]`, `431[]`, `44/x,"e"`, `451-["a",{"_placeholder":true,"num":0}]`, "40/admin?x=1,", `42/a,9["b"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := socketio.DecodeFrame(b)
		if err != nil {
			if !errors.Is(err, socketio.ErrMalformed) {
				t.Fatalf("DecodeFrame(%q) error %v does not wrap ErrMalformed", b, err)
			}
			return
		}
		if fr.Message == nil {
			return
		}
		// Re-encoding a decoded packet must decode to the same packet.
		enc := fr.Message.AppendFrame(nil)
		again, err := socketio.DecodeFrame(enc)
		if err != nil {
			t.Fatalf("DecodeFrame(AppendFrame(DecodeFrame(%q)) = %q) error = %v", b, enc, err)
		}
		if diff := cmp.Diff(fr.Message, again.Message); diff != "" {
			t.Fatalf("round trip of %q via %q (-first +second):\n%s", b, enc, diff)
		}
		if fr.Message.Type == socketio.PacketEvent {
			fr.Message.Event() // must not panic
		}
	})
}
