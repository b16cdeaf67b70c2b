package mysql

import (
	"context"
	"errors"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var _ datastore.Deferrer = (*session)(nil)

// maxRowsPerInsert keeps a multi-row INSERT well under max_allowed_packet.
const maxRowsPerInsert = 500

// DeferCreate implements datastore.Deferrer: records that set the same
// columns, one after the other, go in one multi-row INSERT.
func (s *session) DeferCreate(ctx context.Context, t *datastore.Table, recs []datastore.Record) error {
	if s.tx == nil {
		_, err := s.Create(ctx, t, recs)
		return err
	}
	fail := func(err error) error { return classify("create", s.db.d, t, err) }
	for start := 0; start < len(recs); {
		end := start + 1
		for end < len(recs) && end-start < maxRowsPerInsert && sameKeys(recs[start], recs[end]) {
			end++
		}
		var st sqlgen.Stmt
		var err error
		if len(recs[start]) == 0 {
			st, err = insertSQL(s.db.d, t, recs[start])
			end = start + 1
		} else {
			st, err = sqlgen.InsertRows(s.db.d, t, recs[start:end])
		}
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
		s.tx.later(st.SQL, st.Args, fail)
		start = end
	}
	return nil
}

// sameKeys reports whether a and b set the same columns.
func sameKeys(a, b datastore.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// DeferUpdate implements datastore.Deferrer.
func (s *session) DeferUpdate(ctx context.Context, q *datastore.Query, values datastore.Record) error {
	if s.tx == nil || q.Fetch {
		_, err := s.Update(ctx, q, values)
		return err
	}
	st, err := sqlgen.Update(s.db.d, q, values)
	if errors.Is(err, sqlgen.ErrNoValues) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	s.tx.later(st.SQL, st.Args, func(err error) error { return classify("update", s.db.d, q.Table, err) })
	return nil
}

// DeferDestroy implements datastore.Deferrer.
func (s *session) DeferDestroy(ctx context.Context, q *datastore.Query) error {
	if s.tx == nil || q.Fetch {
		_, err := s.Destroy(ctx, q)
		return err
	}
	st, err := sqlgen.Delete(s.db.d, q)
	if err != nil {
		return fmt.Errorf("destroy: %w", err)
	}
	s.tx.later(st.SQL, st.Args, func(err error) error { return fmt.Errorf("destroy %s: %w", q.Table.Name, err) })
	return nil
}
