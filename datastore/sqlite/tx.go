package sqlite

import (
	"context"

	"github.com/skiffhq/skiff/datastore"
)

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
