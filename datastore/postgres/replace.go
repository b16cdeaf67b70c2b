package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var (
	_ datastore.CollectionReplacer = (*DB)(nil)
	_ datastore.CollectionReplacer = (*session)(nil)
)

// ReplaceCollection implements datastore.CollectionReplacer on the pool,
// which only tells that transactions have it.
func (db *DB) ReplaceCollection(ctx context.Context, r *datastore.Replacement) (*datastore.Replaced, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().ReplaceCollection(ctx, r)
}

// ReplaceCollection implements datastore.CollectionReplacer: BEGIN, the
// pending writes, the locks, the guarded change (sqlgen.ReplaceCollection)
// and COMMIT go in one batch, so the parent's lock, which every change of
// the collection waits for, is held only while the server runs them.
func (s *session) ReplaceCollection(ctx context.Context, r *datastore.Replacement) (*datastore.Replaced, error) {
	if s.tx == nil {
		// Outside a transaction the locks would end with each statement.
		return nil, fmt.Errorf("replace collection: %w", errors.ErrUnsupported)
	}
	change, err := sqlgen.ReplaceCollection(s.d, r)
	if err != nil {
		return nil, fmt.Errorf("replace collection: %w", err)
	}
	b := &pgx.Batch{}
	stmts, tables, err := s.queueLocks(b, r.Locks)
	if err != nil {
		return nil, err
	}
	b.Queue(change.SQL, change.Args...)
	stmts, tables = append(stmts, change), append(tables, r.Child.Name)
	var after *pgx.Batch
	var afterStmts []sqlgen.Stmt
	if len(r.After) > 0 {
		after = &pgx.Batch{}
		if afterStmts, err = s.queueReads(after, r.After); err != nil {
			// Reads it cannot compile are left to the caller, as reads
			// that fail after the commit are.
			after, afterStmts = nil, nil
		}
	}
	var rows, afterRows [][]datastore.Record
	err = s.tx.commitWith(ctx, b, func(br pgx.BatchResults) error {
		rows, err = readResults(br, stmts, func(i int) string { return tables[i] })
		return err
	}, after, func(br pgx.BatchResults) {
		afterRows, _ = readResults(br, afterStmts, func(i int) string { return r.After[i].Query.Table.Name })
	})
	if err != nil {
		return nil, fmt.Errorf("replace collection %w", lockError(err))
	}
	out := &datastore.Replaced{Locked: rows[:len(r.Locks)], After: afterRows}
	for i, row := range rows[len(r.Locks)] {
		if i == 0 {
			out.Applied = row[sqlgen.ReplaceOK] == true
		}
		switch row[sqlgen.ReplaceOp] {
		case float64(sqlgen.ReplaceRemoved):
			if row[sqlgen.ReplaceLive] == true {
				out.Removed = append(out.Removed, row[sqlgen.ReplaceChild])
			}
		case float64(sqlgen.ReplaceAdded):
			out.Added = append(out.Added, row[sqlgen.ReplaceChild])
		}
	}
	return out, nil
}
