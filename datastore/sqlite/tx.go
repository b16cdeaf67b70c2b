package sqlite

import (
	"context"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
)

// InTx runs fn in a transaction begun with BEGIN IMMEDIATE on the write
// connection, so it holds SQLite's write lock from the start and never
// fails to upgrade a read lock halfway. fn must use the Adapter it is given:
// the DB's own write methods wait for the connection the transaction
// holds. The transaction commits when fn returns nil and rolls back when
// it returns an error or panics.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) (err error) {
	if err := db.check(); err != nil {
		return err
	}
	sqltx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			sqltx.Rollback()
		}
	}()
	if err := fn(ctx, &tx{db: db, r: runner{cache: db.writes, tx: sqltx}}); err != nil {
		return err
	}
	committed = true
	if err := sqltx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// tx is the Adapter inside InTx: it reads and writes through the
// transaction, so it sees its own writes.
type tx struct {
	db *DB
	r  runner
}

func (t *tx) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	return find(ctx, t.db.d, t.r, q)
}

func (t *tx) FindThrough(ctx context.Context, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	return findThrough(ctx, t.db.d, t.r, q, j)
}

func (t *tx) FindJoined(ctx context.Context, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	return findJoined(ctx, t.db.d, t.r, q, joins)
}

func (t *tx) FindRows(ctx context.Context, q *datastore.Query, joins []datastore.Join, each func(*datastore.Row) error) error {
	return findRows(ctx, t.db.d, t.r, q, joins, each)
}

func (t *tx) Count(ctx context.Context, q *datastore.Query) (int64, error) {
	return count(ctx, t.db.d, t.r, q)
}

func (t *tx) Create(ctx context.Context, tbl *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	return create(ctx, t.db.d, t.r, tbl, recs)
}

func (t *tx) Update(ctx context.Context, q *datastore.Query, values datastore.Record) ([]datastore.Record, error) {
	return update(ctx, t.db.d, t.r, q, values)
}

func (t *tx) Destroy(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	return destroy(ctx, t.db.d, t.r, q)
}

func (t *tx) Define(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) error {
	return define(ctx, t.db.d, t.r, tables, mode)
}

// InTx joins the running transaction.
func (t *tx) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	return fn(ctx, t)
}

// Close does nothing: the transaction ends when InTx returns.
func (t *tx) Close() error { return nil }
