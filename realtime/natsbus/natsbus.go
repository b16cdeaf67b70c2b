// Package natsbus is a realtime.Bus over NATS core publish/subscribe
// (github.com/nats-io/nats.go): every instance of an app publishes its room
// operations on one subject and subscribes to it.
package natsbus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/skiffhq/skiff/realtime"
)

// DefaultPrefix names the subject when Config.Prefix is empty.
const DefaultPrefix = "skiff"

// Config configures a Bus.
type Config struct {
	// URL is the server, nats://[user:password@]host:port (several may be
	// given, separated by commas).
	URL string
	// Prefix names the subject, Prefix + ".bus"; instances of one app
	// must share it and other apps on the same server must not. Empty
	// means DefaultPrefix.
	Prefix string
}

// Bus is a realtime.Bus on one NATS subject. New succeeds while the server
// is down; the connection keeps trying and the bus joins when it is up.
type Bus struct {
	nc      *nats.Conn
	subject string
}

// New connects to the server opts names, in the background when it is
// not reachable yet. It fails on a malformed URL or prefix.
func New(cfg Config) (*Bus, error) {
	prefix := cfg.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if strings.ContainsAny(prefix, " \t\r\n*>") || strings.HasPrefix(prefix, ".") || strings.HasSuffix(prefix, ".") {
		return nil, fmt.Errorf("nats bus: prefix %q is not a subject (no spaces, no * or >, no leading or trailing dot)", prefix)
	}
	nc, err := nats.Connect(cfg.URL,
		nats.Name("skiff"),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(500*time.Millisecond),
		// No buffering while reconnecting: what cannot cross now fails,
		// and the hub counts it, instead of arriving late.
		nats.ReconnectBufSize(-1),
		nats.NoEcho(),
		// Keep quiet: the hub logs the outage.
		nats.DisconnectErrHandler(func(*nats.Conn, error) {}),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}),
	)
	if err != nil {
		return nil, fmt.Errorf("nats bus: %w", err)
	}
	return &Bus{nc: nc, subject: prefix + ".bus"}, nil
}

// Subject returns the NATS subject the bus uses.
func (b *Bus) Subject() string { return b.subject }

// Publish sends msg on the subject.
func (b *Bus) Publish(_ context.Context, msg []byte) error {
	if max := b.nc.MaxPayload(); max > 0 && int64(len(msg)) > max {
		return fmt.Errorf("nats publish: %d bytes, the server takes %d: %w", len(msg), max, realtime.ErrTooLarge)
	}
	if err := b.nc.Publish(b.subject, msg); err != nil {
		return fmt.Errorf("nats publish: %w", err)
	}
	return nil
}

// errLost reports a connection lost while subscribed; errNotConnected a
// connection not (yet, or again) established.
var (
	errLost         = errors.New("nats connection lost")
	errNotConnected = errors.New("nats server not reachable (still trying)")
)

// Receive subscribes, if connected, and delivers the subject's
// messages until ctx is done or the connection is lost.
func (b *Bus) Receive(ctx context.Context, ready func(), deliver func([]byte)) error {
	if !b.nc.IsConnected() {
		// The connection keeps trying by itself; the hub logs the outage
		// and calls again after a backoff.
		if b.nc.IsClosed() {
			return nats.ErrConnectionClosed
		}
		return errNotConnected
	}
	status := b.nc.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING, nats.CLOSED)
	defer b.nc.RemoveStatusListener(status)
	msgs := make(chan *nats.Msg, 8192)
	sub, err := b.nc.ChanSubscribe(b.subject, msgs)
	if err != nil {
		return fmt.Errorf("nats subscribe: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = b.nc.FlushWithContext(fctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("nats subscribe: %w", err)
	}
	ready()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-msgs:
			deliver(m.Data)
		case <-status:
			return errLost
		}
	}
}

// Close closes the connection.
func (b *Bus) Close() error {
	b.nc.Close()
	return nil
}
