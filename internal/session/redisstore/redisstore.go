// Package redisstore keeps sessions in Redis. It is apart from package
// session so that a program which keeps its sessions elsewhere does not
// link the Redis client.
package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/alexedwards/scs/goredisstore"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix is the key prefix of sessions in Redis, connect-redis'
// default.
const DefaultPrefix = "sess:"

// Store is a session store in Redis that owns its connection: Close
// closes it.
type Store struct {
	*goredisstore.RedisStore
	client *redis.Client
}

// Close closes the connection to Redis.
func (s *Store) Close() error { return s.client.Close() }

// Open connects to the Redis server at url
// ("redis://[user:pass@]host:port[/db]") and returns a store keeping each
// session under prefix+hash(token) with the session's expiry as TTL. Empty
// prefix means DefaultPrefix. It fails when the URL is malformed or the
// server does not answer.
func Open(ctx context.Context, url, prefix string) (*Store, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("session store: redis url: %w", err)
	}
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("session store: redis %s: %w", opts.Addr, err)
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Store{RedisStore: goredisstore.NewWithPrefix(c, prefix), client: c}, nil
}
