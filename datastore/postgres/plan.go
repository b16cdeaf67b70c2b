package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/internal/schemaplan"
)

var _ datastore.Planner = (*DB)(nil)

// Plan implements datastore.Planner: the changes Define would make, read
// from the current schema (information_schema.columns, pg_indexes).
func (db *DB) Plan(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) ([]datastore.Change, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return schemaplan.Plan(ctx, db.d, catalog{db}, tables, mode)
}

// catalog is the schemaplan.Catalog of the current schema.
type catalog struct{ db *DB }

func (c catalog) Columns(ctx context.Context, table string) ([]string, error) {
	return c.db.names(ctx, `SELECT column_name::text FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1`, table)
}

func (c catalog) Indexes(ctx context.Context, table string) ([]string, error) {
	return c.db.names(ctx, `SELECT indexname::text FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = $1`, table)
}

func (c catalog) Count(ctx context.Context, table, column string) (int64, error) {
	var n int64
	err := c.db.pool.QueryRow(ctx, schemaplan.CountQuery(c.db.d, table, column)).Scan(&n)
	return n, err
}

func (db *DB) names(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
