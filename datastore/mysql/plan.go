package mysql

import (
	"context"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/internal/schemaplan"
)

var _ datastore.Planner = (*DB)(nil)

// Plan implements datastore.Planner: the changes Define would make, read
// from the current database (information_schema.COLUMNS, STATISTICS). A
// text column that alter must turn into a VARCHAR before it indexes it is
// part of its index's creation, not a change of its own.
func (db *DB) Plan(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) ([]datastore.Change, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return schemaplan.Plan(ctx, db.d, catalog{db}, tables, mode)
}

// catalog is the schemaplan.Catalog of the current database.
type catalog struct{ db *DB }

func (c catalog) Columns(ctx context.Context, table string) ([]string, error) {
	return c.db.names(ctx, c.db.pool, columnsQuery, table)
}

func (c catalog) Indexes(ctx context.Context, table string) ([]string, error) {
	return c.db.names(ctx, c.db.pool, indexesQuery, table)
}

func (c catalog) Count(ctx context.Context, table, column string) (int64, error) {
	var n int64
	err := c.db.pool.QueryRowContext(ctx, schemaplan.CountQuery(c.db.d, table, column)).Scan(&n)
	return n, err
}
