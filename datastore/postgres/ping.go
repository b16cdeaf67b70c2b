package postgres

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/skiffhq/skiff/datastore"
)

var (
	_ datastore.Pinger    = (*DB)(nil)
	_ datastore.Describer = (*DB)(nil)
)

// Ping implements datastore.Pinger: a pooled connection answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.check(); err != nil {
		return err
	}
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w", err)
	}
	return nil
}

// Describe implements datastore.Describer: "postgres HOST:PORT/DATABASE"
// (never the user or password).
func (db *DB) Describe() string {
	c := db.pool.Config().ConnConfig
	return "postgres " + net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port))) + "/" + c.Database
}

var _ datastore.PoolStater = (*DB)(nil)

// PoolStats implements datastore.PoolStater from pgxpool's statistics.
func (db *DB) PoolStats() datastore.PoolStats {
	st := db.pool.Stat()
	return datastore.PoolStats{Open: int64(st.TotalConns()), InUse: int64(st.AcquiredConns()), Waits: st.EmptyAcquireCount()}
}
