package sqlite

import (
	"context"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var (
	_ datastore.GuardedCreator = (*DB)(nil)
	_ datastore.GuardedCreator = (*tx)(nil)
)

// CreateGuarded implements datastore.GuardedCreator on the write
// connection: SQLite has one writer, so nothing can delete a guard's row
// between the statement's check and its insert, and the statement needs
// neither lock nor transaction of its own (writeOne).
func (db *DB) CreateGuarded(ctx context.Context, t *datastore.Table, rec datastore.Record, guards []datastore.Guard) (datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	var out datastore.Record
	err := db.writeOne(ctx, func(ctx context.Context, a datastore.Adapter) error {
		var err error
		out, err = a.(*tx).CreateGuarded(ctx, t, rec, guards)
		return err
	})
	return out, err
}

// CreateGuarded implements datastore.GuardedCreator in the transaction.
func (t *tx) CreateGuarded(ctx context.Context, tbl *datastore.Table, rec datastore.Record, guards []datastore.Guard) (datastore.Record, error) {
	return createGuarded(ctx, t.db.d, t.r, tbl, rec, guards)
}

// createGuarded runs one INSERT ... SELECT ... WHERE EXISTS (...)
// RETURNING, which also reads the guards' rows the caller wants returned.
func createGuarded(ctx context.Context, d *sqlgen.Dialect, w runner, t *datastore.Table, rec datastore.Record, guards []datastore.Guard) (datastore.Record, error) {
	st, err := sqlgen.InsertGuarded(d, t, rec, guards, "")
	if err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	rows, err := queryRecords(ctx, w, st)
	if err != nil {
		return nil, classify("create", t, err)
	}
	switch len(rows) {
	case 0:
		return nil, nil
	case 1:
		return rows[0], nil
	}
	return nil, fmt.Errorf("create %s: insert returned %d rows", t.Name, len(rows))
}
