// Package postgres is Skiff's PostgreSQL datastore adapter, on
// github.com/jackc/pgx/v5 (pgxpool), for PostgreSQL 12 or later.
//
// Transactions (InTx) run at READ COMMITTED, PostgreSQL's default: each
// statement sees the rows committed before it began, and UPDATE/DELETE lock
// the rows they touch until the transaction ends. Skiff's multi-row changes
// need atomicity, not serializability, so nothing stronger is asked for.
// A transaction sends BEGIN with its first statement and its deferred
// writes (datastore.Deferrer) with its next statement or COMMIT, and one
// that locks (datastore.Locker) plans without bitmap scans; see tx.
// pgx caches prepared statements per connection, so the adapter keeps no
// statement cache of its own.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// DB is a PostgreSQL datastore over a connection pool. It is safe for
// concurrent use.
type DB struct {
	d      *sqlgen.Dialect
	pool   *pgxpool.Pool
	closed atomic.Bool
	// replaces keeps the text of the statements of replaceStatement.
	replaces statementCache
	// earlyRelease lets a replace's transaction release its locks before
	// its commit is on disk (see tx.releaseLocksEarly).
	earlyRelease bool
}

var (
	_ datastore.Adapter       = (*DB)(nil)
	_ datastore.ThroughFinder = (*DB)(nil)
	_ datastore.ThroughFinder = (*session)(nil)
	_ datastore.Deferrer      = (*session)(nil)
	_ datastore.BatchFinder   = (*DB)(nil)
	_ datastore.BatchFinder   = (*session)(nil)
	_ datastore.JoinFinder    = (*DB)(nil)
	_ datastore.JoinFinder    = (*session)(nil)
)

// querier is what the adapter needs from a pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Open connects to the database at cfg.URL (a postgres:// URL or a
// keyword/value string; search_path and other run-time parameters may be
// given there) and checks that it answers.
func Open(ctx context.Context, cfg datastore.Config) (*DB, error) {
	if cfg.URL == "" {
		return nil, errors.New("open postgres: datastore url is required")
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	early, err := earlyRelease(ctx, pool, cfg.Options)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	return &DB{d: sqlgen.Postgres(), pool: pool, earlyRelease: early}, nil
}

// earlyReleaseOption is the datastore setting that turns early lock
// release on (see tx.releaseLocksEarly); it is off by default.
const earlyReleaseOption = "earlyLockRelease"

// earlyRelease reports whether replaces may release their locks before
// their commit is on disk: only when the datastore's settings ask for it.
// Off by default, since others could then read (and act on) a change that
// a crash in the moment before its flush would lose. Asked for, it needs
// the role to run waitForDisk's function, which a database may refuse it
// (its execution is granted to everyone unless revoked); refused, Open
// fails rather than run without it silently.
func earlyRelease(ctx context.Context, pool *pgxpool.Pool, options map[string]any) (bool, error) {
	want := false
	for k, v := range options {
		// Any case: a variable's name (SKIFF_DATASTORES__X__EARLYLOCKRELEASE) comes lower-cased.
		if !strings.EqualFold(k, earlyReleaseOption) {
			continue
		}
		on, ok := v.(bool)
		if !ok {
			return false, fmt.Errorf("%s must be true or false, not %v", earlyReleaseOption, v)
		}
		want = on
	}
	if !want {
		return false, nil
	}
	var may bool
	err := pool.QueryRow(ctx, `select coalesce(bool_and(has_function_privilege(oid, 'execute')), false)
		from pg_proc where proname = 'pg_logical_emit_message' and pronamespace = 'pg_catalog'::regnamespace`).Scan(&may)
	if err != nil {
		return false, fmt.Errorf("check for %s: %w", earlyReleaseOption, err)
	}
	if !may {
		return false, fmt.Errorf("%s: true needs the role to run pg_logical_emit_message (GRANT EXECUTE), which it may not", earlyReleaseOption)
	}
	return true, nil
}

// Close closes the pool, waiting for connections in use to be returned.
// Later calls return nil; other methods then return datastore.ErrClosed.
func (db *DB) Close() error {
	if !db.closed.Swap(true) {
		db.pool.Close()
	}
	return nil
}

func (db *DB) check() error {
	if db.closed.Load() {
		return datastore.ErrClosed
	}
	return nil
}

// session runs the adapter's operations on a pool or in a transaction.
type session struct {
	d  *sqlgen.Dialect
	q  querier
	db *DB
	tx *tx // nil outside a transaction
}

func (db *DB) session() *session { return &session{d: db.d, q: db.pool, db: db} }

// Find implements datastore.Adapter.
func (db *DB) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().Find(ctx, q)
}

// FindJoined implements datastore.JoinFinder.
func (db *DB) FindJoined(ctx context.Context, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().FindJoined(ctx, q, joins)
}

// FindRows implements datastore.RowFinder.
func (db *DB) FindRows(ctx context.Context, q *datastore.Query, joins []datastore.Join, each func(*datastore.Row) error) error {
	if err := db.check(); err != nil {
		return err
	}
	return db.session().FindRows(ctx, q, joins, each)
}

// FindThrough implements datastore.ThroughFinder.
func (db *DB) FindThrough(ctx context.Context, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().FindThrough(ctx, q, j)
}

// Count implements datastore.Adapter.
func (db *DB) Count(ctx context.Context, q *datastore.Query) (int64, error) {
	if err := db.check(); err != nil {
		return 0, err
	}
	return db.session().Count(ctx, q)
}

// Create implements datastore.Adapter. The inserts travel in one batch,
// which PostgreSQL runs as one implicit transaction: all or none.
func (db *DB) Create(ctx context.Context, t *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().Create(ctx, t, recs)
}

// Update implements datastore.Adapter with one UPDATE ... RETURNING.
func (db *DB) Update(ctx context.Context, q *datastore.Query, values datastore.Record) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().Update(ctx, q, values)
}

// Destroy implements datastore.Adapter with one DELETE ... RETURNING.
func (db *DB) Destroy(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().Destroy(ctx, q)
}

// Define implements datastore.Adapter in one transaction (PostgreSQL DDL
// is transactional). MigrateAlter creates missing tables, adds and drops
// columns (PostgreSQL drops the indexes of a dropped column) and creates
// missing unique indexes, keeping rows. It leaves a column whose kind or
// type changed as it is, and never changes the primary key.
func (db *DB) Define(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) error {
	if err := db.check(); err != nil {
		return err
	}
	if mode == datastore.MigrateSafe {
		return nil
	}
	return db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		return tx.Define(ctx, tables, mode)
	})
}

// InTx implements datastore.Adapter with a transaction at READ COMMITTED
// (see the package comment) on one pooled connection, whose BEGIN travels
// with its first statement and whose deferred writes travel with COMMIT
// (see tx). It rolls back when fn returns an error or panics, or when the
// commit fails.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	if err := db.check(); err != nil {
		return err
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Release()
	t := &tx{conn: conn}
	done := false
	defer func() {
		if !done {
			t.rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := fn(ctx, &session{d: db.d, q: t, db: db, tx: t}); err != nil {
		return err
	}
	if err := t.commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	done = true
	return nil
}
