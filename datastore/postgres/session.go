package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// Find implements datastore.Adapter.
func (s *session) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	st, err := sqlgen.Select(s.d, q)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", q.Table.Name, err)
	}
	return recs, nil
}

// FindThrough implements datastore.ThroughFinder.
func (s *session) FindThrough(ctx context.Context, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	st, err := sqlgen.SelectThrough(s.d, q, j)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("find %s through %s: %w", q.Table.Name, j.Table.Name, err)
	}
	return recs, nil
}

// FindJoined implements datastore.JoinFinder.
func (s *session) FindJoined(ctx context.Context, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	st, err := sqlgen.SelectJoined(s.d, q, joins)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("find %s joined: %w", q.Table.Name, err)
	}
	return recs, nil
}

// FindRows implements datastore.RowFinder, scanning as records does.
func (s *session) FindRows(ctx context.Context, q *datastore.Query, joins []datastore.Join, each func(*datastore.Row) error) error {
	st, err := sqlgen.SelectRows(s.d, q, joins)
	if err != nil {
		return fmt.Errorf("find: %w", err)
	}
	rows, err := s.q.Query(ctx, st.SQL, st.Args...)
	if err != nil {
		return fmt.Errorf("find %s: %w", q.Table.Name, err)
	}
	// each's own errors come back as they are, the read's wrapped.
	var eachErr error
	err = eachRow(rows, st.Columns, st.Nests, func(row *datastore.Row) error {
		eachErr = each(row)
		return eachErr
	})
	if eachErr != nil {
		return eachErr
	}
	if err != nil {
		return fmt.Errorf("find %s: %w", q.Table.Name, err)
	}
	return nil
}

// Lock implements datastore.Locker with SELECT ... FOR UPDATE, the locks
// and the reads in one batch so that they cost one round trip; the
// statements still run, and lock, one after the other. Outside a
// transaction the lock would end with the statement, so it only reads.
func (s *session) Lock(ctx context.Context, locks []datastore.Lock, reads ...*datastore.Query) ([][]datastore.Record, error) {
	b := &pgx.Batch{}
	stmts, tables, err := s.queueLocks(b, locks)
	if err != nil {
		return nil, err
	}
	for _, q := range reads {
		st, err := sqlgen.Select(s.d, q)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		b.Queue(st.SQL, st.Args...)
		stmts, tables = append(stmts, st), append(tables, q.Table.Name)
	}
	out, err := s.readBatch(ctx, b, stmts, func(i int) string { return tables[i] })
	if err != nil {
		return nil, fmt.Errorf("lock %w", lockError(err))
	}
	if s.tx != nil {
		s.tx.seqScansBack()
	}
	return out, nil
}

// queueLocks queues on b the statements that take locks and returns them
// with their tables' names. In a transaction they are planned to find rows
// by key (see tx.keyScansOnly).
func (s *session) queueLocks(b *pgx.Batch, locks []datastore.Lock) ([]sqlgen.Stmt, []string, error) {
	if s.tx != nil {
		s.tx.keyScansOnly()
	}
	stmts := make([]sqlgen.Stmt, 0, len(locks)+1)
	tables := make([]string, 0, len(locks)+1)
	for _, l := range locks {
		sel := *l.Query
		if len(sel.Select) == 0 {
			sel.Select = []string{sel.Table.PrimaryKey}
		}
		st, err := sqlgen.Select(s.d, &sel)
		if err != nil {
			return nil, nil, fmt.Errorf("lock: %w", err)
		}
		if s.tx != nil {
			st.SQL += " FOR UPDATE"
		}
		b.Queue(st.SQL, st.Args...)
		stmts, tables = append(stmts, st), append(tables, sel.Table.Name)
	}
	return stmts, tables, nil
}

// lockError adds datastore.ErrLockBusy to PostgreSQL's lock_not_available.
func lockError(err error) error {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == "55P03" {
		return fmt.Errorf("%w: %w", datastore.ErrLockBusy, err)
	}
	return err
}

// Count implements datastore.Adapter.
func (s *session) Count(ctx context.Context, q *datastore.Query) (int64, error) {
	st, err := sqlgen.Count(s.d, q)
	if err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	rows, err := s.q.Query(ctx, st.SQL, st.Args...)
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
	}
	n, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
	}
	return n, nil
}

// Create implements datastore.Adapter: one batch of single-row inserts, so
// results keep the order of recs. Explicit values for an auto-increment key
// move its sequence past them, so later generated keys do not collide.
func (s *session) Create(ctx context.Context, t *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	if len(recs) == 0 {
		return []datastore.Record{}, nil
	}
	b := &pgx.Batch{}
	stmts, err := s.inserts(b, t, recs)
	if err != nil {
		return nil, err
	}
	br := s.q.SendBatch(ctx, b)
	out := make([]datastore.Record, 0, len(recs))
	for _, st := range stmts {
		rows, err := br.Query()
		if err == nil {
			var got []datastore.Record
			got, err = scan(rows, st.Columns)
			if err == nil && len(got) != 1 {
				err = fmt.Errorf("insert returned %d rows", len(got))
			}
			if err == nil {
				out = append(out, got[0])
			}
		}
		if err != nil {
			br.Close()
			return nil, classify("create", s.d, t, err)
		}
	}
	if err := br.Close(); err != nil {
		return nil, classify("create", s.d, t, err)
	}
	return out, nil
}

// inserts queues on b the statements that insert recs into t, one per
// record so that each returns its row, then moveSequence's; it returns the
// inserts.
func (s *session) inserts(b *pgx.Batch, t *datastore.Table, recs []datastore.Record) ([]sqlgen.Stmt, error) {
	stmts := make([]sqlgen.Stmt, len(recs))
	for i, rec := range recs {
		st, err := sqlgen.Insert(s.d, t, rec)
		if err != nil {
			return nil, fmt.Errorf("create: %w", err)
		}
		stmts[i] = st
		b.Queue(st.SQL, st.Args...)
	}
	s.moveSequence(b, t, recs)
	return stmts, nil
}

// moveSequence queues on b, when recs give explicit values for t's
// auto-increment key, the statement that moves its sequence past them.
func (s *session) moveSequence(b *pgx.Batch, t *datastore.Table, recs []datastore.Record) {
	maxKey := int64(math.MinInt64)
	for _, rec := range recs {
		if k, ok := explicitKey(t, rec); ok {
			maxKey = max(maxKey, k)
		}
	}
	if maxKey != math.MinInt64 {
		b.Queue(`SELECT setval(s::regclass, $1::bigint)
			FROM pg_get_serial_sequence($2, $3) AS s
			WHERE s IS NOT NULL AND $1::bigint > COALESCE(pg_sequence_last_value(s::regclass), 0)`,
			maxKey, s.d.Ident(t.Name), t.PrimaryKey)
	}
}

// maxRowsPerInsert keeps a multi-row INSERT well under PostgreSQL's limit
// of 65535 parameters.
const maxRowsPerInsert = 500

// DeferCreate implements datastore.Deferrer: records that set the same
// columns, one after the other, go in one multi-row INSERT.
func (s *session) DeferCreate(ctx context.Context, t *datastore.Table, recs []datastore.Record) error {
	if s.tx == nil {
		_, err := s.Create(ctx, t, recs)
		return err
	}
	b := &pgx.Batch{}
	for start := 0; start < len(recs); {
		end := start + 1
		for end < len(recs) && end-start < maxRowsPerInsert && sameKeys(recs[start], recs[end]) {
			end++
		}
		var st sqlgen.Stmt
		var err error
		if len(recs[start]) == 0 {
			st, err = sqlgen.Insert(s.d, t, recs[start])
			end = start + 1
		} else {
			st, err = sqlgen.InsertRows(s.d, t, recs[start:end])
		}
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
		b.Queue(st.SQL, st.Args...)
		start = end
	}
	s.moveSequence(b, t, recs)
	s.deferBatch(b, func(err error) error { return classify("create", s.d, t, err) })
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
	st, err := sqlgen.Update(s.d, q, values)
	if errors.Is(err, sqlgen.ErrNoValues) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	s.tx.later(st.SQL, st.Args, func(err error) error { return classify("update", s.d, q.Table, err) })
	return nil
}

// DeferDestroy implements datastore.Deferrer.
func (s *session) DeferDestroy(ctx context.Context, q *datastore.Query) error {
	if s.tx == nil || q.Fetch {
		_, err := s.Destroy(ctx, q)
		return err
	}
	st, err := sqlgen.Delete(s.d, q)
	if err != nil {
		return fmt.Errorf("destroy: %w", err)
	}
	s.tx.later(st.SQL, st.Args, func(err error) error { return fmt.Errorf("destroy %s: %w", q.Table.Name, err) })
	return nil
}

// deferBatch queues the statements of b on the session's transaction.
func (s *session) deferBatch(b *pgx.Batch, fail func(error) error) {
	for _, qq := range b.QueuedQueries {
		s.tx.later(qq.SQL, qq.Arguments, fail)
	}
}

// explicitKey returns rec's value for t's auto-increment key, if given.
func explicitKey(t *datastore.Table, rec datastore.Record) (int64, bool) {
	c := t.Column(t.PrimaryKey)
	if c == nil || !c.AutoIncrement {
		return 0, false
	}
	v, err := sqlgen.Encode(datastore.Integer, rec[t.PrimaryKey])
	if err != nil {
		return 0, false
	}
	k, ok := v.(int64)
	return k, ok
}

// Update implements datastore.Adapter.
func (s *session) Update(ctx context.Context, q *datastore.Query, values datastore.Record) ([]datastore.Record, error) {
	st, err := sqlgen.Update(s.d, q, values)
	if errors.Is(err, sqlgen.ErrNoValues) {
		if !q.Fetch {
			return nil, nil
		}
		return s.Find(ctx, &datastore.Query{Table: q.Table, Where: q.Where, Limit: criteria.Unlimited})
	}
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	if !q.Fetch {
		if _, err := s.q.Exec(ctx, st.SQL, st.Args...); err != nil {
			return nil, classify("update", s.d, q.Table, err)
		}
		return nil, nil
	}
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, classify("update", s.d, q.Table, err)
	}
	sqlgen.SortByPK(q.Table, recs)
	return recs, nil
}

// Destroy implements datastore.Adapter.
func (s *session) Destroy(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	st, err := sqlgen.Delete(s.d, q)
	if err != nil {
		return nil, fmt.Errorf("destroy: %w", err)
	}
	if !q.Fetch {
		if _, err := s.q.Exec(ctx, st.SQL, st.Args...); err != nil {
			return nil, fmt.Errorf("destroy %s: %w", q.Table.Name, err)
		}
		return nil, nil
	}
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("destroy %s: %w", q.Table.Name, err)
	}
	sqlgen.SortByPK(q.Table, recs)
	return recs, nil
}

// InTx joins the session's transaction, or starts one on the pool.
func (s *session) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	if s.tx != nil {
		return fn(ctx, s)
	}
	return s.db.InTx(ctx, fn)
}

// Close does nothing: a transaction ends when its InTx returns.
func (s *session) Close() error { return nil }

func (s *session) records(ctx context.Context, st sqlgen.Stmt) ([]datastore.Record, error) {
	rows, err := s.q.Query(ctx, st.SQL, st.Args...)
	if err != nil {
		return nil, err
	}
	return scan(rows, st.Columns, st.Nests...)
}

// scan reads rows whose columns are cols, the columns of joined rows
// nested as nests say (see sqlgen.NestedRecord).
func scan(rows pgx.Rows, cols []*datastore.Column, nests ...sqlgen.Nest) ([]datastore.Record, error) {
	out := []datastore.Record{}
	err := eachRow(rows, cols, nests, func(row *datastore.Row) error {
		out = append(out, sqlgen.RecordOf(row))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachRow hands each of rows, whose columns are cols (joined rows placed
// as nests say), to each with its values decoded, in one Row reused from
// row to row; it closes rows.
func eachRow(rows pgx.Rows, cols []*datastore.Column, nests []sqlgen.Nest, each func(*datastore.Row) error) error {
	defer rows.Close()
	cells, dest := scanners(rows.FieldDescriptions(), cols)
	row := &datastore.Row{Columns: cols, Nests: nests, Values: make([]any, len(cols))}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i, c := range cols {
			v, err := cells[i].value(c.Kind)
			if err != nil {
				return fmt.Errorf("column %s: %w", c.Name, err)
			}
			row.Values[i] = v
		}
		if err := each(row); err != nil {
			return err
		}
	}
	return rows.Err()
}

// cell is the scan destination of one result column. Columns of the
// default type of their kind scan into a typed value: going through any
// (rows.Values) boxed every integer twice, once as the int64 pgx reads and
// once as the float64 the contract wants.
type cell struct {
	typ uint32 // the OID scanned into a typed value, or 0 for v
	i8  pgtype.Int8
	f8  pgtype.Float8
	b   pgtype.Bool
	t   pgtype.Text
	v   any
}

// scanners returns a cell per column and the Scan destinations in them.
func scanners(fields []pgconn.FieldDescription, cols []*datastore.Column) ([]cell, []any) {
	cells := make([]cell, len(cols))
	dest := make([]any, len(cols))
	for i, c := range cols {
		var oid uint32
		if i < len(fields) {
			oid = fields[i].DataTypeOID
		}
		ce := &cells[i]
		switch {
		case c.Kind == datastore.Integer && (oid == pgtype.Int8OID || oid == pgtype.Int4OID):
			ce.typ, dest[i] = pgtype.Int8OID, &ce.i8
		case c.Kind == datastore.Number && oid == pgtype.Float8OID:
			ce.typ, dest[i] = oid, &ce.f8
		case c.Kind == datastore.Boolean && oid == pgtype.BoolOID:
			ce.typ, dest[i] = oid, &ce.b
		case c.Kind == datastore.String && oid == pgtype.TextOID:
			ce.typ, dest[i] = oid, &ce.t
		default:
			dest[i] = &ce.v
		}
	}
	return cells, dest
}

// value returns the value last scanned into ce as the contract's type.
func (ce *cell) value(k datastore.Kind) (any, error) {
	switch ce.typ {
	case pgtype.Int8OID:
		if ce.i8.Valid {
			return float64(ce.i8.Int64), nil
		}
	case pgtype.Float8OID:
		if ce.f8.Valid {
			return ce.f8.Float64, nil
		}
	case pgtype.BoolOID:
		if ce.b.Valid {
			return ce.b.Bool, nil
		}
	case pgtype.TextOID:
		if ce.t.Valid {
			return ce.t.String, nil
		}
	default:
		return decode(k, ce.v)
	}
	return nil, nil
}

// decode converts a pgx value to the contract's type for kind k. pgx has
// already decoded JSON, so a JSON string must not be unmarshalled again.
func decode(k datastore.Kind, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case pgtype.Numeric:
		f, err := x.Float64Value()
		if err != nil {
			return nil, err
		}
		if !f.Valid {
			return nil, nil
		}
		v = f.Float64
	}
	if k == datastore.JSON {
		return v, nil
	}
	return sqlgen.Decode(k, v)
}
