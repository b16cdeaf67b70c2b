// Package sockettest is a minimal sails.io.js-compatible socket client for
// Skiff's own tests and load benchmarks: it connects over WebSocket
// (Engine.IO v3 or v4), sends virtual requests with acks and collects the
// events the server emits. It is not a general socket.io client.
package sockettest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/skiffhq/skiff/internal/socketio"
)

// Event is one event the server emitted to the client.
type Event struct {
	Name string
	// Data is the event's first argument.
	Data json.RawMessage
	// At is when the client read it.
	At time.Time
}

// JWR is a virtual request's response.
type JWR struct {
	Body       json.RawMessage   `json:"body"`
	Headers    map[string]string `json:"headers"`
	StatusCode int               `json:"statusCode"`
}

// Options tune Dial.
type Options struct {
	// EIO is the Engine.IO protocol version, 3 (sails.io.js) or 4; 0 means 4.
	EIO int
	// Header is sent with the handshake (Origin, Cookie, ...).
	Header http.Header
	// NoSDK leaves out the sails.io.js SDK query parameters.
	NoSDK bool
	// Events is the capacity of the event buffer; 0 means 1024. When it is
	// full the client stops reading (and the server will drop it).
	Events int
}

// Client is one connected socket.
type Client struct {
	conn *websocket.Conn
	eio  int
	// ID is the socket id the server gave.
	ID     string
	events chan Event
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	nextAck int
	pending map[int]chan json.RawMessage
	err     error
	done    chan struct{}
}

// Dial connects to the Skiff server at base (http://host:port).
func Dial(ctx context.Context, base string, o Options) (*Client, error) {
	if o.EIO == 0 {
		o.EIO = 4
	}
	if o.Events == 0 {
		o.Events = 1024
	}
	q := url.Values{"EIO": {strconv.Itoa(o.EIO)}, "transport": {"websocket"}}
	if !o.NoSDK {
		q.Set("__sails_io_sdk_version", "1.2.1")
		q.Set("__sails_io_sdk_platform", "node")
		q.Set("__sails_io_sdk_language", "javascript")
	}
	u := strings.Replace(strings.TrimRight(base, "/"), "http", "ws", 1) + "/socket.io/?" + q.Encode()
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: o.Header})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial %s: %s: %w", u, resp.Status, err)
		}
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	conn.SetReadLimit(64 << 20)
	c := &Client{conn: conn, eio: o.EIO, events: make(chan Event, o.Events), pending: map[int]chan json.RawMessage{}, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if err := c.handshake(ctx); err != nil {
		conn.CloseNow()
		return nil, err
	}
	go c.read()
	return c, nil
}

func (c *Client) handshake(ctx context.Context) error {
	_, b, err := c.conn.Read(ctx)
	if err != nil {
		return fmt.Errorf("read open packet: %w", err)
	}
	if len(b) == 0 || b[0] != '0' {
		return fmt.Errorf("expected an open packet, got %q", b)
	}
	var open struct {
		SID          string `json:"sid"`
		PingInterval int    `json:"pingInterval"`
	}
	if err := json.Unmarshal(b[1:], &open); err != nil {
		return fmt.Errorf("open packet %q: %w", b, err)
	}
	c.ID = open.SID
	if c.eio == 4 {
		if err := c.conn.Write(ctx, websocket.MessageText, []byte("40")); err != nil {
			return fmt.Errorf("connect: %w", err)
		}
	}
	_, b, err = c.conn.Read(ctx)
	if err != nil {
		return fmt.Errorf("read connect packet: %w", err)
	}
	if !strings.HasPrefix(string(b), "40") {
		return fmt.Errorf("expected a connect packet, got %q", b)
	}
	if c.eio == 3 && open.PingInterval > 0 {
		go c.ping(time.Duration(open.PingInterval) * time.Millisecond)
	}
	return nil
}

// ping keeps an EIO=3 connection alive: there the client pings.
func (c *Client) ping(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			if c.conn.Write(c.ctx, websocket.MessageText, []byte("2")) != nil {
				return
			}
		}
	}
}

func (c *Client) read() {
	defer close(c.done)
	defer close(c.events)
	for {
		_, b, err := c.conn.Read(c.ctx)
		if err != nil {
			c.fail(err)
			return
		}
		at := time.Now()
		f, err := socketio.DecodeFrame(b)
		if err != nil {
			c.fail(err)
			return
		}
		switch f.Type {
		case socketio.EnginePing:
			_ = c.conn.Write(c.ctx, websocket.MessageText, []byte("3"))
		case socketio.EngineClose:
			c.fail(errors.New("server closed the connection"))
			return
		case socketio.EngineMessage:
			m := f.Message
			switch m.Type {
			case socketio.PacketEvent:
				name, args, err := m.Event()
				if err != nil {
					c.fail(err)
					return
				}
				ev := Event{Name: name, At: at}
				if len(args) > 0 {
					ev.Data = append(json.RawMessage(nil), args[0]...)
				}
				select {
				case c.events <- ev:
				case <-c.ctx.Done():
					return
				}
			case socketio.PacketAck:
				var args []json.RawMessage
				_ = json.Unmarshal(m.Data, &args)
				c.mu.Lock()
				ch := c.pending[int(m.ID)]
				delete(c.pending, int(m.ID))
				c.mu.Unlock()
				if ch != nil && len(args) > 0 {
					ch <- append(json.RawMessage(nil), args[0]...)
				}
			case socketio.PacketDisconnect:
				c.fail(errors.New("server disconnected the socket"))
				return
			}
		}
	}
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// Emit sends an event without an ack.
func (c *Client) Emit(ctx context.Context, event string, args ...any) error {
	b, err := json.Marshal(append([]any{event}, args...))
	if err != nil {
		return err
	}
	return c.conn.Write(ctx, websocket.MessageText, append([]byte("42"), b...))
}

// Request sends a virtual request as sails.io.js does and waits for its
// response. data may be nil.
func (c *Client) Request(ctx context.Context, method, path string, data any) (JWR, error) {
	return c.RequestWithHeaders(ctx, method, path, data, nil)
}

// RequestWithHeaders is Request with headers in the request's envelope,
// as io.socket.request({headers}) sends them.
func (c *Client) RequestWithHeaders(ctx context.Context, method, path string, data any, headers map[string]string) (JWR, error) {
	if headers == nil {
		headers = map[string]string{}
	}
	env := map[string]any{"method": strings.ToLower(method), "url": path, "headers": headers}
	if data != nil {
		env["data"] = data
	}
	raw, err := c.Ack(ctx, strings.ToLower(method), env)
	if err != nil {
		return JWR{}, err
	}
	var jwr JWR
	if err := json.Unmarshal(raw, &jwr); err != nil {
		return JWR{}, fmt.Errorf("response %s: %w", raw, err)
	}
	return jwr, nil
}

// Ack emits an event with an ack id and returns the ack's first argument.
func (c *Client) Ack(ctx context.Context, event string, args ...any) (json.RawMessage, error) {
	b, err := json.Marshal(append([]any{event}, args...))
	if err != nil {
		return nil, err
	}
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	id := c.nextAck
	c.nextAck++
	c.pending[id] = ch
	c.mu.Unlock()
	frame := append([]byte("42"+strconv.Itoa(id)), b...)
	if err := c.conn.Write(ctx, websocket.MessageText, frame); err != nil {
		return nil, err
	}
	select {
	case raw, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("socket closed before the ack: %w", c.Err())
		}
		return raw, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Events returns the channel of events the server sent, closed when the
// connection ends.
func (c *Client) Events() <-chan Event { return c.events }

// Next returns the next event, or an error when ctx ends or the
// connection closes first.
func (c *Client) Next(ctx context.Context) (Event, error) {
	select {
	case ev, ok := <-c.events:
		if !ok {
			return Event{}, fmt.Errorf("connection closed: %w", c.Err())
		}
		return ev, nil
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
}

// Err returns why the connection ended, or nil while it is open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection and waits for the reader to stop.
func (c *Client) Close() error {
	err := c.conn.Close(websocket.StatusNormalClosure, "")
	c.cancel()
	<-c.done
	return err
}
