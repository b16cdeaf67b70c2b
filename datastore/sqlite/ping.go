package sqlite

import (
	"context"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
)

var (
	_ datastore.Pinger    = (*DB)(nil)
	_ datastore.Describer = (*DB)(nil)
)

// Ping implements datastore.Pinger: both connection pools answer.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.check(); err != nil {
		return err
	}
	if err := db.write.PingContext(ctx); err != nil {
		return fmt.Errorf("ping sqlite: %w", err)
	}
	if err := db.read.PingContext(ctx); err != nil {
		return fmt.Errorf("ping sqlite: %w", err)
	}
	return nil
}

// Describe implements datastore.Describer: "sqlite FILE", or "sqlite in
// memory".
func (db *DB) Describe() string {
	if db.where == "" {
		return "sqlite in memory"
	}
	return "sqlite " + db.where
}

var _ datastore.PoolStater = (*DB)(nil)

// PoolStats implements datastore.PoolStater: the read and write pools
// together.
func (db *DB) PoolStats() datastore.PoolStats {
	r, w := db.read.Stats(), db.write.Stats()
	return datastore.PoolStats{
		Open:  int64(r.OpenConnections + w.OpenConnections),
		InUse: int64(r.InUse + w.InUse),
		Waits: r.WaitCount + w.WaitCount,
	}
}
