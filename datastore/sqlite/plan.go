package sqlite

import (
	"context"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/internal/schemaplan"
)

var _ datastore.Planner = (*DB)(nil)

// Plan implements datastore.Planner: the changes Define would make, read
// from the schema as it is (pragma_table_info, sqlite_master).
func (db *DB) Plan(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) ([]datastore.Change, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return schemaplan.Plan(ctx, db.d, catalog{db: db, r: runner{cache: db.reads}}, tables, mode)
}

// catalog is the schemaplan.Catalog of a database.
type catalog struct {
	db *DB
	r  runner
}

func (c catalog) Columns(ctx context.Context, table string) ([]string, error) {
	return strings1(ctx, c.r, "SELECT name FROM pragma_table_info(?)", table)
}

func (c catalog) Indexes(ctx context.Context, table string) ([]string, error) {
	return strings1(ctx, c.r, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", table)
}

func (c catalog) Count(ctx context.Context, table, column string) (int64, error) {
	rows, err := c.r.queryDDL(ctx, schemaplan.CountQuery(c.db.d, table, column))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}
