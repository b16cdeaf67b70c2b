// Package redisbus is a realtime.Bus over Redis pub/sub
// (github.com/redis/go-redis/v9): every instance of an app publishes its
// room operations on one channel and subscribes to it. It is Skiff's
// counterpart of Sails' socket.io Redis adapter; the two do not speak to
// each other.
package redisbus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix names the channel when Config.Prefix is empty.
const DefaultPrefix = "skiff"

// pingEvery is how long a quiet subscription waits before it checks that
// the server is still there (a silently dropped connection would otherwise
// be noticed only by the kernel, minutes later).
const pingEvery = 15 * time.Second

// Config configures a Bus.
type Config struct {
	// URL is the server: redis://[[user]:password@]host:port[/db], or
	// rediss:// for TLS.
	URL string
	// Prefix names the channel, Prefix + "#bus"; instances of one app must
	// share it and other apps on the same server must not (Sails'
	// adapterOptions.key). Empty means DefaultPrefix.
	Prefix string
}

// Bus is a realtime.Bus on one Redis channel. It connects lazily: New
// succeeds while the server is down, and the bus joins when it is up.
type Bus struct {
	client  *redis.Client
	channel string
}

// New returns a Bus for the server and channel opts name. It fails only on
// a malformed URL.
func New(cfg Config) (*Bus, error) {
	ro, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("redis bus: url: %w", err)
	}
	// Publishing must fail fast while the server is down: the hub counts
	// what could not cross and goes on.
	ro.DialTimeout = 2 * time.Second
	// One retry: a pooled connection the server closed since (a restart)
	// fails once, then a fresh one is dialled.
	ro.MaxRetries = 1
	ro.DialerRetries = 1
	prefix := cfg.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Bus{client: redis.NewClient(ro), channel: prefix + "#bus"}, nil
}

// Channel returns the Redis channel the bus uses.
func (b *Bus) Channel() string { return b.channel }

// Publish sends msg on the channel.
func (b *Bus) Publish(ctx context.Context, msg []byte) error {
	if err := b.client.Publish(ctx, b.channel, msg).Err(); err != nil {
		return fmt.Errorf("redis publish: %w", err)
	}
	return nil
}

// Receive subscribes to the channel and delivers its messages until ctx
// is done or the connection is lost.
func (b *Bus) Receive(ctx context.Context, ready func(), deliver func([]byte)) error {
	ps := b.client.Subscribe(ctx)
	defer ps.Close()
	// A blocking read does not watch ctx: closing the subscription ends it.
	stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
	defer stop()
	if err := ps.Subscribe(ctx, b.channel); err != nil {
		return ctxOr(ctx, fmt.Errorf("redis subscribe: %w", err))
	}
	for {
		v, err := ps.ReceiveTimeout(ctx, pingEvery)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
				if err := ps.Ping(ctx); err != nil {
					return ctxOr(ctx, fmt.Errorf("redis ping: %w", err))
				}
				continue
			}
			return ctxOr(ctx, fmt.Errorf("redis receive: %w", err))
		}
		switch m := v.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				ready()
			}
		case *redis.Message:
			deliver([]byte(m.Payload))
		}
	}
}

// ctxOr returns nil once ctx is done (the error is then the subscription
// being closed on purpose), else err.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// Close closes the bus's connections.
func (b *Bus) Close() error { return b.client.Close() }
