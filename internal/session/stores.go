package session

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/alexedwards/scs/goredisstore"
	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix is the key prefix of sessions in Redis, connect-redis'
// default.
const DefaultRedisPrefix = "sess:"

// NewRedisStore connects to the Redis server at url
// ("redis://[user:pass@]host:port[/db]") and returns a store keeping each
// session under prefix+hash(token) with the session's expiry as TTL, and
// the closer that closes the connection. Empty prefix means
// DefaultRedisPrefix. It fails when the URL is malformed or the server
// does not answer.
func NewRedisStore(ctx context.Context, url, prefix string) (*goredisstore.RedisStore, io.Closer, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("session store: redis url: %w", err)
	}
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("session store: redis %s: %w", opts.Addr, err)
	}
	if prefix == "" {
		prefix = DefaultRedisPrefix
	}
	return goredisstore.NewWithPrefix(c, prefix), c, nil
}
