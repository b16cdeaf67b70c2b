package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// querier is what a session needs from the pool or a transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// session runs the adapter's operations on the pool or in a transaction.
type session struct {
	db *DB
	q  querier
	tx *tx // nil outside a transaction
}

func (db *DB) session() *session { return &session{db: db, q: db.pool} }

// Find implements datastore.Adapter.
func (db *DB) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().Find(ctx, q)
}

// FindThrough implements datastore.ThroughFinder.
func (db *DB) FindThrough(ctx context.Context, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().FindThrough(ctx, q, j)
}

// FindJoined implements datastore.JoinFinder.
func (db *DB) FindJoined(ctx context.Context, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().FindJoined(ctx, q, joins)
}

// Count implements datastore.Adapter.
func (db *DB) Count(ctx context.Context, q *datastore.Query) (int64, error) {
	if err := db.check(); err != nil {
		return 0, err
	}
	return db.session().Count(ctx, q)
}

// Create implements datastore.Adapter. Several records are inserted in one
// transaction, all or none.
func (db *DB) Create(ctx context.Context, t *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	if len(recs) <= 1 {
		return db.session().Create(ctx, t, recs)
	}
	var out []datastore.Record
	err := db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		var err error
		out, err = tx.Create(ctx, t, recs)
		return err
	})
	return out, err
}

// Update implements datastore.Adapter. With q.Fetch it runs in a
// transaction of its own: MySQL has no UPDATE ... RETURNING.
func (db *DB) Update(ctx context.Context, q *datastore.Query, values datastore.Record) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	if !q.Fetch {
		return db.session().Update(ctx, q, values)
	}
	var out []datastore.Record
	err := db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		var err error
		out, err = tx.Update(ctx, q, values)
		return err
	})
	return out, err
}

// Destroy implements datastore.Adapter. With q.Fetch it runs in a
// transaction of its own: MySQL has no DELETE ... RETURNING.
func (db *DB) Destroy(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	if !q.Fetch {
		return db.session().Destroy(ctx, q)
	}
	var out []datastore.Record
	err := db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		var err error
		out, err = tx.Destroy(ctx, q)
		return err
	})
	return out, err
}

// Find implements datastore.Adapter.
func (s *session) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	st, err := sqlgen.Select(s.db.d, q)
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
	st, err := sqlgen.SelectThrough(s.db.d, q, j)
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
	st, err := sqlgen.SelectJoined(s.db.d, q, joins)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("find %s joined: %w", q.Table.Name, err)
	}
	return recs, nil
}

// Count implements datastore.Adapter.
func (s *session) Count(ctx context.Context, q *datastore.Query) (int64, error) {
	st, err := sqlgen.Count(s.db.d, q)
	if err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	var n int64
	if err := s.queryRow(ctx, st.SQL, st.Args, &n); err != nil {
		return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
	}
	return n, nil
}

func (s *session) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	rows, err := s.q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// insertSQL is sqlgen.Insert, in dialect d, in MySQL's words for a row of
// defaults.
func insertSQL(d *sqlgen.Dialect, t *datastore.Table, rec datastore.Record) (sqlgen.Stmt, error) {
	st, err := sqlgen.Insert(d, t, rec)
	if err != nil {
		return st, err
	}
	into := "INSERT INTO " + d.Ident(t.Name)
	if rest, ok := strings.CutPrefix(st.SQL, into+" DEFAULT VALUES"); ok {
		st.SQL = into + " () VALUES ()" + rest
	}
	return st, nil
}

// Create implements datastore.Adapter. On MariaDB each INSERT returns its
// row (INSERT ... RETURNING); on MySQL, which has no RETURNING, the rows
// are read back by key, in the same round trip for one record. Several
// records must be inserted in a transaction (DB.Create makes one).
func (s *session) Create(ctx context.Context, t *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	if len(recs) == 0 {
		return []datastore.Record{}, nil
	}
	pk := t.Column(t.PrimaryKey)
	if pk == nil {
		return nil, fmt.Errorf("create %s: the table has no primary key column", t.Name)
	}
	if s.db.inserts != nil {
		return s.createReturning(ctx, t, recs)
	}
	keys := make([]any, len(recs))
	for i, rec := range recs {
		st, err := insertSQL(s.db.d, t, rec)
		if err != nil {
			return nil, fmt.Errorf("create: %w", err)
		}
		if v, ok := rec[pk.Name]; ok && v != nil {
			if keys[i], err = sqlgen.Encode(pk.Kind, v); err != nil {
				return nil, fmt.Errorf("create %s: %w", t.Name, err)
			}
		}
		if len(recs) == 1 {
			// INSERT, then SELECT by key, in one round trip.
			return s.createOne(ctx, t, pk, st, keys[0])
		}
		res, err := s.q.ExecContext(ctx, st.SQL, st.Args...)
		if err != nil {
			return nil, classify("create", s.db.d, t, err)
		}
		if keys[i] == nil {
			id, err := res.LastInsertId()
			if err != nil {
				return nil, fmt.Errorf("create %s: %w", t.Name, err)
			}
			keys[i] = id
		}
	}
	rows, err := s.Find(ctx, byKeys(t, keys))
	if err != nil {
		return nil, fmt.Errorf("create %s: read back: %w", t.Name, err)
	}
	return inKeyOrder(t, pk, rows, keys)
}

// A round trip of createReturning carries at most maxInsertsPerTrip
// statements and, past the first, maxTripBytes of SQL and values, so that
// records that each fit the server's max_allowed_packet (16 MiB by
// default) never fail together.
const (
	maxInsertsPerTrip = 100
	maxTripBytes      = 1 << 20
)

// createReturning inserts recs with INSERT ... RETURNING (MariaDB), one
// statement per record, several per round trip: the server sends each row
// as it stored it, with its generated key and the values it converted,
// which is what reading it back would give.
func (s *session) createReturning(ctx context.Context, t *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	stmts := make([]sqlgen.Stmt, len(recs))
	for i, rec := range recs {
		var err error
		if stmts[i], err = insertSQL(s.db.inserts, t, rec); err != nil {
			return nil, fmt.Errorf("create: %w", err)
		}
	}
	out := make([]datastore.Record, 0, len(recs))
	for len(stmts) > 0 {
		n, size := 1, stmtSize(stmts[0])
		for n < len(stmts) && n < maxInsertsPerTrip {
			if size += stmtSize(stmts[n]); size > maxTripBytes {
				break
			}
			n++
		}
		trip := stmts[:n]
		stmts = stmts[n:]
		var sb strings.Builder
		var args []any
		for i, st := range trip {
			if i > 0 {
				sb.WriteString("; ")
			}
			sb.WriteString(st.SQL)
			args = append(args, st.Args...)
		}
		err := s.query(ctx, sb.String(), args, func(r *results) error {
			for i, st := range trip {
				if i > 0 && !r.nextSet() {
					if err := r.err(); err != nil {
						return err
					}
					return errors.New("a row was not returned")
				}
				recs, err := r.records(st.Columns)
				if err != nil {
					return err
				}
				if len(recs) != 1 {
					return fmt.Errorf("%d rows returned, want 1", len(recs))
				}
				out = append(out, recs[0])
			}
			return nil
		})
		if err != nil {
			return nil, classify("create", s.db.d, t, err)
		}
	}
	return out, nil
}

// stmtSize is about the bytes st takes once its values are interpolated.
func stmtSize(st sqlgen.Stmt) int {
	n := len(st.SQL)
	for _, a := range st.Args {
		switch v := a.(type) {
		case string:
			n += 2 * len(v)
		case []byte:
			n += 2 * len(v)
		default:
			n += 24
		}
	}
	return n
}

// createOne inserts one row with st and reads it back in the same round
// trip: by key when it is known, else by LAST_INSERT_ID().
func (s *session) createOne(ctx context.Context, t *datastore.Table, pk *datastore.Column, st sqlgen.Stmt, key any) ([]datastore.Record, error) {
	var sel sqlgen.Stmt
	var err error
	if key != nil {
		sel, err = sqlgen.Select(s.db.d, byKeys(t, []any{key}))
	} else {
		sel, err = sqlgen.Select(s.db.d, &datastore.Query{Table: t, Limit: criteria.Unlimited})
		if err == nil {
			// No WHERE, an ORDER BY: the condition goes before it.
			before, after, _ := strings.Cut(sel.SQL, " ORDER BY ")
			sel.SQL = before + " WHERE " + s.db.d.Ident(pk.Name) + " = LAST_INSERT_ID() ORDER BY " + after
		}
	}
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", t.Name, err)
	}
	var recs []datastore.Record
	answered := false
	err = s.query(ctx, st.SQL+"; "+sel.SQL, append(st.Args, sel.Args...), func(r *results) error {
		answered = true
		// The driver skips the INSERT's empty result itself, but be
		// ready for one that does not.
		if r.columns() == 0 && !r.nextSet() {
			if err := r.err(); err != nil {
				return classify("create", s.db.d, t, err)
			}
			return fmt.Errorf("create %s: no row read back", t.Name)
		}
		var err error
		if recs, err = r.records(sel.Columns); err != nil {
			return fmt.Errorf("create %s: read back: %w", t.Name, err)
		}
		return nil
	})
	if err != nil && !answered {
		return nil, classify("create", s.db.d, t, err)
	}
	if err != nil {
		return nil, err
	}
	if len(recs) != 1 {
		return nil, fmt.Errorf("create %s: read back %d rows, want 1", t.Name, len(recs))
	}
	return recs, nil
}

// byKeys queries the rows of t whose primary key is one of keys.
func byKeys(t *datastore.Table, keys []any) *datastore.Query {
	return &datastore.Query{Table: t, Where: &criteria.Cmp{Attr: t.PrimaryKey, Op: criteria.In, Value: keys}, Limit: criteria.Unlimited}
}

// inKeyOrder returns rows in the order of keys, one per key.
func inKeyOrder(t *datastore.Table, pk *datastore.Column, rows []datastore.Record, keys []any) ([]datastore.Record, error) {
	byKey := make(map[string]datastore.Record, len(rows))
	for _, r := range rows {
		byKey[keyString(r[pk.Name])] = r
	}
	out := make([]datastore.Record, len(keys))
	for i, k := range keys {
		dk, err := sqlgen.Decode(pk.Kind, k)
		if err != nil {
			return nil, err
		}
		if out[i] = byKey[keyString(dk)]; out[i] == nil {
			return nil, fmt.Errorf("create %s: row %v not read back", t.Name, k)
		}
	}
	return out, nil
}

func keyString(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// Update implements datastore.Adapter. With q.Fetch (in a transaction:
// DB.Update makes one) it locks the rows q.Where matches, updates them by
// key, and reads them back.
func (s *session) Update(ctx context.Context, q *datastore.Query, values datastore.Record) ([]datastore.Record, error) {
	if !q.Fetch {
		st, err := sqlgen.Update(s.db.d, q, values)
		if errors.Is(err, sqlgen.ErrNoValues) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("update: %w", err)
		}
		if _, err := s.q.ExecContext(ctx, st.SQL, st.Args...); err != nil {
			return nil, classify("update", s.db.d, q.Table, err)
		}
		return nil, nil
	}
	if s.tx == nil {
		return s.db.Update(ctx, q, values)
	}
	if _, err := sqlgen.Update(s.db.d, q, values); err != nil && !errors.Is(err, sqlgen.ErrNoValues) {
		return nil, fmt.Errorf("update: %w", err)
	}
	keys, err := s.lockKeys(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", q.Table.Name, err)
	}
	if len(keys) == 0 {
		return []datastore.Record{}, nil
	}
	st, err := sqlgen.Update(s.db.d, byKeys(q.Table, keys), values)
	if err == nil {
		if _, err := s.q.ExecContext(ctx, st.SQL, st.Args...); err != nil {
			return nil, classify("update", s.db.d, q.Table, err)
		}
	} else if !errors.Is(err, sqlgen.ErrNoValues) {
		return nil, fmt.Errorf("update: %w", err)
	}
	return s.Find(ctx, byKeys(q.Table, keys))
}

// lockKeys locks the rows q.Where matches and returns their keys.
func (s *session) lockKeys(ctx context.Context, q *datastore.Query) ([]any, error) {
	pk := q.Table.Column(q.Table.PrimaryKey)
	if pk == nil {
		return nil, errors.New("the table has no primary key column")
	}
	st, err := sqlgen.Select(s.db.d, &datastore.Query{Table: q.Table, Where: q.Where, Limit: criteria.Unlimited, Select: []string{pk.Name}})
	if err != nil {
		return nil, err
	}
	recs, err := s.records(ctx, sqlgen.Stmt{SQL: st.SQL + " FOR UPDATE", Args: st.Args, Columns: st.Columns})
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(recs))
	for i, r := range recs {
		keys[i] = r[pk.Name]
	}
	return keys, nil
}

// Destroy implements datastore.Adapter. With q.Fetch (in a transaction:
// DB.Destroy makes one) it reads and locks the rows q.Where matches, then
// deletes them by key.
func (s *session) Destroy(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	if !q.Fetch {
		st, err := sqlgen.Delete(s.db.d, q)
		if err != nil {
			return nil, fmt.Errorf("destroy: %w", err)
		}
		if _, err := s.q.ExecContext(ctx, st.SQL, st.Args...); err != nil {
			return nil, fmt.Errorf("destroy %s: %w", q.Table.Name, err)
		}
		return nil, nil
	}
	if s.tx == nil {
		return s.db.Destroy(ctx, q)
	}
	pk := q.Table.Column(q.Table.PrimaryKey)
	if pk == nil {
		return nil, fmt.Errorf("destroy %s: the table has no primary key column", q.Table.Name)
	}
	st, err := sqlgen.Select(s.db.d, &datastore.Query{Table: q.Table, Where: q.Where, Limit: criteria.Unlimited})
	if err != nil {
		return nil, fmt.Errorf("destroy: %w", err)
	}
	st.SQL += " FOR UPDATE"
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("destroy %s: %w", q.Table.Name, err)
	}
	if len(recs) == 0 {
		return recs, nil
	}
	keys := make([]any, len(recs))
	for i, r := range recs {
		keys[i] = r[pk.Name]
	}
	del, err := sqlgen.Delete(s.db.d, byKeys(q.Table, keys))
	if err != nil {
		return nil, fmt.Errorf("destroy: %w", err)
	}
	if _, err := s.q.ExecContext(ctx, del.SQL, del.Args...); err != nil {
		return nil, fmt.Errorf("destroy %s: %w", q.Table.Name, err)
	}
	return recs, nil
}

// Lock implements datastore.Locker with SELECT ... FOR UPDATE [NOWAIT],
// the locks and the reads in one round trip; the statements still run,
// and lock, one after the other. Outside a transaction the lock would end
// with the statement, so it only reads.
func (s *session) Lock(ctx context.Context, locks []datastore.Lock, reads ...*datastore.Query) ([][]datastore.Record, error) {
	stmts := make([]sqlgen.Stmt, 0, len(locks)+len(reads))
	tables := make([]string, 0, len(locks)+len(reads))
	for _, l := range locks {
		st, err := s.lockStmt(l)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		stmts, tables = append(stmts, st), append(tables, l.Query.Table.Name)
	}
	for _, q := range reads {
		st, err := sqlgen.Select(s.db.d, q)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		stmts, tables = append(stmts, st), append(tables, q.Table.Name)
	}
	out, err := s.multi(ctx, stmts, tables)
	if err != nil {
		return nil, fmt.Errorf("lock %w", lockError(err, false))
	}
	return out, nil
}

// lockStmt compiles the SELECT ... FOR UPDATE of l (a plain SELECT
// outside a transaction).
func (s *session) lockStmt(l datastore.Lock) (sqlgen.Stmt, error) {
	sel := *l.Query
	if len(sel.Select) == 0 {
		sel.Select = []string{sel.Table.PrimaryKey}
	}
	st, err := sqlgen.Select(s.db.d, &sel)
	if err != nil {
		return st, err
	}
	if s.tx != nil {
		st.SQL += " FOR UPDATE"
	}
	return st, nil
}

// multi runs stmts, each returning rows, in one round trip (one
// multi-statement query) and returns each one's rows. An error names the
// failing statement's table.
func (s *session) multi(ctx context.Context, stmts []sqlgen.Stmt, tables []string) ([][]datastore.Record, error) {
	out := make([][]datastore.Record, len(stmts))
	if len(stmts) == 0 {
		return out, nil
	}
	var sb strings.Builder
	var args []any
	for i, st := range stmts {
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(st.SQL)
		args = append(args, st.Args...)
	}
	answered := false
	err := s.query(ctx, sb.String(), args, func(r *results) error {
		answered = true
		for i, st := range stmts {
			if i > 0 && !r.nextSet() {
				if err := r.err(); err != nil {
					return fmt.Errorf("%s: %w", tables[i], err)
				}
				return fmt.Errorf("%s: result missing", tables[i])
			}
			var err error
			if out[i], err = r.records(st.Columns, st.Nests...); err != nil {
				return fmt.Errorf("%s: %w", tables[i], err)
			}
		}
		return nil
	})
	if err != nil && !answered {
		return nil, fmt.Errorf("%s: %w", tables[0], err)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// InTx joins the session's transaction, or starts one on the pool.
func (s *session) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	if s.tx != nil {
		return fn(ctx, s)
	}
	return s.db.InTx(ctx, fn)
}

// Define implements datastore.Adapter. MySQL commits a transaction before
// any DDL statement, so inside one Define ends it.
func (s *session) Define(ctx context.Context, tables []*datastore.Table, mode datastore.Migrate) error {
	return s.db.define(ctx, s.q, tables, mode)
}

// Close does nothing: a transaction ends when its InTx returns.
func (s *session) Close() error { return nil }

func (s *session) records(ctx context.Context, st sqlgen.Stmt) ([]datastore.Record, error) {
	var recs []datastore.Record
	err := s.query(ctx, st.SQL, st.Args, func(r *results) error {
		var err error
		recs, err = r.records(st.Columns, st.Nests...)
		return err
	})
	return recs, err
}

// scan reads the rows of the current result set. The driver gives
// integers as int64, DOUBLE as float64 and everything else as bytes.
// scan reads rows whose columns are cols, the columns of joined rows
// nested as nests say (see sqlgen.NestedRecord).
func scan(rows *sql.Rows, cols []*datastore.Column, nests ...sqlgen.Nest) ([]datastore.Record, error) {
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	// Decoded in place when nested: Scan sets every value again.
	var scratch []any
	if len(nests) > 0 {
		scratch = vals
	}
	value := func(i int) (any, error) { return decode(cols[i].Kind, vals[i]) }
	out := []datastore.Record{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		rec, err := sqlgen.RowRecord(cols, nests, scratch, value)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, rows.Err()
}

// decode converts a driver value to the contract's type for kind k.
func decode(k datastore.Kind, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		switch k {
		case datastore.Number, datastore.Integer, datastore.JSON:
			return float64(x), nil
		case datastore.Boolean:
			return x != 0, nil
		}
	case uint64:
		v = float64(x)
	case []byte:
		switch k {
		case datastore.String:
			return string(x), nil
		case datastore.Boolean:
			switch string(x) {
			case "1", "\x01":
				return true, nil
			case "0", "\x00":
				return false, nil
			}
			return strconv.ParseBool(string(x))
		}
	case float64:
		if k == datastore.JSON {
			return x, nil
		}
	}
	return sqlgen.Decode(k, v)
}
