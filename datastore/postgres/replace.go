package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
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
// (sqlgen.ReplaceCollection), COMMIT, the wait for the disk, then the
// reads after it go in one batch, so the parents' locks, which every
// change of their collections waits for, are held only while the server
// runs them, and, unless early lock release is off, not while the disk
// writes the commit.
func (s *session) ReplaceCollections(ctx context.Context, rs []*datastore.Replacement) ([]*datastore.Replaced, error) {
	if s.tx == nil {
		// Outside a transaction the locks would end with each statement.
		return nil, fmt.Errorf("replace collection: %w", errors.ErrUnsupported)
	}
	if s.db.earlyRelease {
		// Every concurrent replace of these collections queues for the
		// parents' locks: they need not wait for this one's disk.
		s.tx.releaseLocksEarly()
	}
	b := &pgx.Batch{}
	locks := make([][]sqlgen.Stmt, len(rs))
	changes := make([]sqlgen.Stmt, len(rs))
	var reads []datastore.Read
	for i, r := range rs {
		var err error
		if changes[i], err = s.db.replaceStatement(r); err != nil {
			return nil, fmt.Errorf("replace collection: %w", err)
		}
		if locks[i], _, err = s.queueLocks(b, []datastore.Lock{r.ParentLock()}); err != nil {
			return nil, err
		}
		b.Queue(changes[i].SQL, changes[i].Args...)
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
	out := make([]*datastore.Replaced, len(rs))
	var afterRows [][]datastore.Record
	err := s.tx.commitWith(ctx, b, func(br pgx.BatchResults) error {
		for i, r := range rs {
			parent, err := readResults(br, locks[i], func(int) string { return r.Parent.Name })
			if err != nil {
				return err
			}
			rows, err := br.Query()
			if err == nil {
				out[i], err = scanReplaced(rows, changes[i].Columns, r.Child.PrimaryKey)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", r.Child.Name, err)
			}
			if len(parent[0]) > 0 {
				out[i].Parent = parent[0][0]
			}
		}
		return nil
	}, after, func(br pgx.BatchResults) {
		afterRows, _ = readResults(br, afterStmts, func(i int) string { return reads[i].Query.Table.Name })
	})
	if err != nil {
		return nil, fmt.Errorf("replace collection %w", lockError(err))
	}
	if afterRows != nil {
		for i, r := range rs {
			out[i].After, afterRows = afterRows[:len(r.After)], afterRows[len(r.After):]
		}
	}
	return out, nil
}

// replaceColumns are the columns every row of sqlgen.ReplaceCollection's
// statement starts with; the locked children's columns follow.
var replaceColumns = [...]string{sqlgen.ReplaceOK, sqlgen.ReplaceOp, sqlgen.ReplaceChild, sqlgen.ReplaceOrd}

// scanReplaced reads the rows of a sqlgen.ReplaceCollection statement,
// whose columns are cols, into what the change did, with the children it
// locked, whose key column is key. Only those rows
// become records: the others are read for their keys.
func scanReplaced(rows pgx.Rows, cols []*datastore.Column, key string) (*datastore.Replaced, error) {
	defer rows.Close()
	cells, dest := scanners(rows.FieldDescriptions(), cols)
	childCols := cols[len(replaceColumns):]
	children := []datastore.Record{}
	out := &datastore.Replaced{}
	first := true
	op, child, ord := &cells[1], &cells[2], &cells[3]
	if op.typ != pgtype.Int8OID || cells[0].typ != pgtype.BoolOID {
		return nil, fmt.Errorf("replace collection: unexpected column types %v", rows.FieldDescriptions())
	}
	type unlinked struct{ id, ord any }
	var removed []unlinked
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if first {
			out.Applied, first = cells[0].b.Valid && cells[0].b.Bool, false
		}
		if !op.i8.Valid {
			continue // no child: the test alone
		}
		if op.i8.Int64 == sqlgen.ReplaceLocked {
			rec := make(datastore.Record, len(childCols))
			for i, c := range childCols {
				v, err := cells[len(replaceColumns)+i].value(c.Kind)
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", c.Name, err)
				}
				rec[c.Name] = v
			}
			children = append(children, rec)
			continue
		}
		id, err := child.value(cols[2].Kind)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cols[2].Name, err)
		}
		switch op.i8.Int64 {
		case sqlgen.ReplaceRemoved:
			o, err := ord.value(cols[3].Kind)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", cols[3].Name, err)
			}
			removed = append(removed, unlinked{id, o})
		case sqlgen.ReplaceAdded:
			out.Added = append(out.Added, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out.Children = children
	if len(removed) == 0 {
		return out, nil
	}
	// In the order of the links' keys. A child that was not locked no
	// longer exists: its link, left by a destroy that already reported the
	// child gone, goes without a report.
	slices.SortStableFunc(removed, func(a, b unlinked) int { return sqlgen.CompareKeys(a.ord, b.ord) })
	live := make(map[any]bool, len(children))
	for _, rec := range children {
		live[rec[key]] = true
	}
	for _, u := range removed {
		if live[u.id] {
			out.Removed = append(out.Removed, u.id)
		}
	}
	return out, nil
}

// replaceShape is what the text of sqlgen.ReplaceCollection's statement
// depends on: the tables (a model's tables live as long as the adapter),
// the columns linking them, and the children's columns it selects.
type replaceShape struct {
	parent, child, through *datastore.Table
	parentCol, childCol    string
	via                    string
	required               bool
	columns                string
}

// statementCache maps a replaceShape to its statement, without arguments.
// Shapes come from the models, not from requests, so there are few; it
// stops growing at maxCachedStatements all the same.
type statementCache struct {
	m sync.Map
	n atomic.Int64
}

const maxCachedStatements = 1024

// replaceStatement is sqlgen.ReplaceCollection's statement for r, whose
// text, long to build and the same for every change of one collection, is
// built once.
func (db *DB) replaceStatement(r *datastore.Replacement) (sqlgen.Stmt, error) {
	args, err := sqlgen.ReplaceCollectionArgs(db.d, r)
	if err != nil {
		return sqlgen.Stmt{}, err
	}
	k := replaceShape{parent: r.Parent, child: r.Child, via: r.Via, required: r.Required, columns: strings.Join(r.ChildColumns, "\x00")}
	if r.Through != nil {
		k.through, k.parentCol, k.childCol = r.Through.Table, r.Through.ParentColumn, r.Through.ChildColumn
	}
	if st, ok := db.replaces.m.Load(k); ok {
		st := st.(sqlgen.Stmt)
		st.Args = args
		return st, nil
	}
	st, err := sqlgen.ReplaceCollection(db.d, r)
	if err != nil {
		return st, err
	}
	if db.replaces.n.Add(1) <= maxCachedStatements {
		db.replaces.m.Store(k, sqlgen.Stmt{SQL: st.SQL, Columns: st.Columns})
	}
	return st, nil
}
