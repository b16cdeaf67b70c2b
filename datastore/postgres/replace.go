package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var (
	_ datastore.CollectionReplacer = (*DB)(nil)
	_ datastore.CollectionReplacer = (*session)(nil)
)

// ReplaceCollections implements datastore.CollectionReplacer on the pool,
// which only tells that transactions have it.
func (db *DB) ReplaceCollections(ctx context.Context, rs []*datastore.Replacement) ([]*datastore.Replaced, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().ReplaceCollections(ctx, rs)
}

// ReplaceCollections implements datastore.CollectionReplacer: BEGIN, the
// pending writes, each replacement's locks and guarded change
// (sqlgen.ReplaceCollection), COMMIT, then the reads after it go in one
// batch, so the parents' locks, which every change of their collections
// waits for, are held only while the server runs them.
func (s *session) ReplaceCollections(ctx context.Context, rs []*datastore.Replacement) ([]*datastore.Replaced, error) {
	if s.tx == nil {
		// Outside a transaction the locks would end with each statement.
		return nil, fmt.Errorf("replace collection: %w", errors.ErrUnsupported)
	}
	b := &pgx.Batch{}
	var stmts []sqlgen.Stmt
	var tables []string
	var reads []datastore.Read
	for _, r := range rs {
		change, err := sqlgen.ReplaceCollection(s.d, r)
		if err != nil {
			return nil, fmt.Errorf("replace collection: %w", err)
		}
		st, tb, err := s.queueLocks(b, r.Locks)
		if err != nil {
			return nil, err
		}
		b.Queue(change.SQL, change.Args...)
		stmts, tables = append(append(stmts, st...), change), append(append(tables, tb...), r.Child.Name)
		reads = append(reads, r.After...)
	}
	var after *pgx.Batch
	var afterStmts []sqlgen.Stmt
	if len(reads) > 0 {
		after = &pgx.Batch{}
		var err error
		if afterStmts, err = s.queueReads(after, reads); err != nil {
			// Reads it cannot compile are left to the caller, as reads
			// that fail after the commit are.
			after, afterStmts = nil, nil
		}
	}
	var rows, afterRows [][]datastore.Record
	err := s.tx.commitWith(ctx, b, func(br pgx.BatchResults) error {
		var err error
		rows, err = readResults(br, stmts, func(i int) string { return tables[i] })
		return err
	}, after, func(br pgx.BatchResults) {
		afterRows, _ = readResults(br, afterStmts, func(i int) string { return reads[i].Query.Table.Name })
	})
	if err != nil {
		return nil, fmt.Errorf("replace collection %w", lockError(err))
	}
	out := make([]*datastore.Replaced, len(rs))
	for i, r := range rs {
		n := len(r.Locks)
		out[i] = replaced(rows[:n], rows[n], stmts[n].Columns[len(replaceColumns):])
		rows, stmts = rows[n+1:], stmts[n+1:]
		if afterRows != nil {
			out[i].After, afterRows = afterRows[:len(r.After)], afterRows[len(r.After):]
		}
	}
	return out, nil
}

// replaceColumns are the columns every row of sqlgen.ReplaceCollection's
// statement starts with; the locked children's columns follow.
var replaceColumns = []string{sqlgen.ReplaceOK, sqlgen.ReplaceOp, sqlgen.ReplaceChild, sqlgen.ReplaceLive}

// replaced is what one replacement did: the rows its locks returned, and
// those of its change (see sqlgen.ReplaceCollection), whose locked
// children have the columns childCols.
func replaced(locked [][]datastore.Record, change []datastore.Record, childCols []*datastore.Column) *datastore.Replaced {
	children := []datastore.Record{}
	out := &datastore.Replaced{}
	for i, row := range change {
		if i == 0 {
			out.Applied = row[sqlgen.ReplaceOK] == true
		}
		switch row[sqlgen.ReplaceOp] {
		case float64(sqlgen.ReplaceLocked):
			child := make(datastore.Record, len(childCols))
			for _, c := range childCols {
				child[c.Name] = row[c.Name]
			}
			children = append(children, child)
		case float64(sqlgen.ReplaceRemoved):
			if row[sqlgen.ReplaceLive] == true {
				out.Removed = append(out.Removed, row[sqlgen.ReplaceChild])
			}
		case float64(sqlgen.ReplaceAdded):
			out.Added = append(out.Added, row[sqlgen.ReplaceChild])
		}
	}
	out.Locked = append(slices.Clip(locked), children)
	return out
}
