package mysql

import (
	"context"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var (
	_ datastore.BatchFinder = (*DB)(nil)
	_ datastore.BatchFinder = (*session)(nil)
)

// FindBatch implements datastore.BatchFinder on the pool.
func (db *DB) FindBatch(ctx context.Context, reads []datastore.Read) ([][]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().FindBatch(ctx, reads)
}

// FindBatch implements datastore.BatchFinder with one multi-statement
// query: the SELECTs travel together and their results come back
// together, one round trip in all.
func (s *session) FindBatch(ctx context.Context, reads []datastore.Read) ([][]datastore.Record, error) {
	stmts := make([]sqlgen.Stmt, len(reads))
	tables := make([]string, len(reads))
	for i, r := range reads {
		var err error
		switch {
		case r.Through != nil:
			stmts[i], err = sqlgen.SelectThrough(s.db.d, r.Query, r.Through)
		case r.Joins != nil:
			stmts[i], err = sqlgen.SelectJoined(s.db.d, r.Query, r.Joins)
		default:
			stmts[i], err = sqlgen.Select(s.db.d, r.Query)
		}
		if err != nil {
			return nil, fmt.Errorf("find batch: %w", err)
		}
		tables[i] = r.Query.Table.Name
	}
	out, err := s.multi(ctx, stmts, tables)
	if err != nil {
		return nil, fmt.Errorf("find batch: %w", err)
	}
	return out, nil
}
