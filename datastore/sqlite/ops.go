package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Find implements datastore.Adapter on the read pool.
func (db *DB) Find(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return find(ctx, db.d, runner{cache: db.reads}, q)
}

// FindThrough implements datastore.ThroughFinder on the read pool.
func (db *DB) FindThrough(ctx context.Context, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return findThrough(ctx, db.d, runner{cache: db.reads}, q, j)
}

// FindJoined implements datastore.JoinFinder on the read pool.
func (db *DB) FindJoined(ctx context.Context, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return findJoined(ctx, db.d, runner{cache: db.reads}, q, joins)
}

// FindRows implements datastore.RowFinder on the read pool.
func (db *DB) FindRows(ctx context.Context, q *datastore.Query, joins []datastore.Join, each func(*datastore.Row) error) error {
	if err := db.check(); err != nil {
		return err
	}
	return findRows(ctx, db.d, runner{cache: db.reads}, q, joins, each)
}

// Count implements datastore.Adapter on the read pool.
func (db *DB) Count(ctx context.Context, q *datastore.Query) (int64, error) {
	if err := db.check(); err != nil {
		return 0, err
	}
	return count(ctx, db.d, runner{cache: db.reads}, q)
}

// Create implements datastore.Adapter; several records are inserted in one
// transaction, all or none.
func (db *DB) Create(ctx context.Context, t *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	var out []datastore.Record
	err := db.inGroup(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		var err error
		out, err = tx.Create(ctx, t, recs)
		return err
	}, len(recs) <= 1)
	return out, err
}

// Update implements datastore.Adapter with one UPDATE ... RETURNING.
func (db *DB) Update(ctx context.Context, q *datastore.Query, values datastore.Record) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	var out []datastore.Record
	err := db.writeOne(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		var err error
		out, err = tx.Update(ctx, q, values)
		return err
	})
	return out, err
}

// Destroy implements datastore.Adapter with one DELETE ... RETURNING.
func (db *DB) Destroy(ctx context.Context, q *datastore.Query) ([]datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	var out []datastore.Record
	err := db.writeOne(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		var err error
		out, err = tx.Destroy(ctx, q)
		return err
	})
	return out, err
}

func find(ctx context.Context, d *sqlgen.Dialect, r runner, q *datastore.Query) ([]datastore.Record, error) {
	ctx, err := keyReadContext(ctx, r, q)
	if err != nil {
		return nil, err
	}
	st, err := sqlgen.Select(d, q)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	recs, err := queryRecords(ctx, r, st)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", q.Table.Name, err)
	}
	return recs, nil
}

func findThrough(ctx context.Context, d *sqlgen.Dialect, r runner, q *datastore.Query, j *datastore.Through) ([]datastore.Record, error) {
	st, err := sqlgen.SelectThrough(d, q, j)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	recs, err := queryRecords(ctx, r, st)
	if err != nil {
		return nil, fmt.Errorf("find %s through %s: %w", q.Table.Name, j.Table.Name, err)
	}
	return recs, nil
}

func findJoined(ctx context.Context, d *sqlgen.Dialect, r runner, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	ctx, err := keyReadContext(ctx, r, q)
	if err != nil {
		return nil, err
	}
	st, err := sqlgen.SelectJoined(d, q, joins)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	recs, err := queryRecords(ctx, r, st)
	if err != nil {
		return nil, fmt.Errorf("find %s joined: %w", q.Table.Name, err)
	}
	return recs, nil
}

func findRows(ctx context.Context, d *sqlgen.Dialect, r runner, q *datastore.Query, joins []datastore.Join, each func(*datastore.Row) error) error {
	ctx, err := keyReadContext(ctx, r, q)
	if err != nil {
		return err
	}
	st, err := sqlgen.SelectRows(d, q, joins)
	if err != nil {
		return fmt.Errorf("find: %w", err)
	}
	// each's own errors come back as they are, the read's wrapped.
	var eachErr error
	err = eachRow(ctx, r, st, func(row *datastore.Row) error {
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

// keyReadContext returns the context a read of q outside a transaction runs
// with. A read of one row by its primary key (and of the rows its joins
// point at, by theirs) costs the same whatever the tables hold, less than
// watching for its cancellation: with a cancellable context the driver
// starts a goroutine per statement to interrupt it and steps each row
// through a lock-wait hook. Such a read runs detached from ctx's
// cancellation, once ctx is checked not to be done already: in WAL mode a
// reader almost never waits on a lock (and then for busy_timeout at most),
// so it ends within microseconds either way. Other reads, whose work grows
// with the data, keep ctx, and so does a read in a transaction.
func keyReadContext(ctx context.Context, r runner, q *datastore.Query) (context.Context, error) {
	w, ok := q.Where.(*criteria.Cmp)
	if r.tx != nil || !ok || w.Op != criteria.Eq || w.Key != "" || w.Value == nil || q.Table == nil ||
		w.Attr != q.Table.PrimaryKey || q.PartitionBy != "" {
		return ctx, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

func count(ctx context.Context, d *sqlgen.Dialect, r runner, q *datastore.Query) (int64, error) {
	st, err := sqlgen.Count(d, q)
	if err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	rows, err := r.query(ctx, st.SQL, st.Args)
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
	}
	return n, nil
}

func create(ctx context.Context, d *sqlgen.Dialect, w runner, t *datastore.Table, recs []datastore.Record) ([]datastore.Record, error) {
	out := make([]datastore.Record, 0, len(recs))
	for _, rec := range recs {
		st, err := sqlgen.Insert(d, t, rec)
		if err != nil {
			return nil, fmt.Errorf("create: %w", err)
		}
		rows, err := queryRecords(ctx, w, st)
		if err != nil {
			return nil, classify("create", t, err)
		}
		if len(rows) != 1 {
			return nil, fmt.Errorf("create %s: insert returned %d rows", t.Name, len(rows))
		}
		out = append(out, rows[0])
	}
	return out, nil
}

func update(ctx context.Context, d *sqlgen.Dialect, w runner, q *datastore.Query, values datastore.Record) ([]datastore.Record, error) {
	st, err := sqlgen.Update(d, q, values)
	if errors.Is(err, sqlgen.ErrNoValues) {
		if !q.Fetch {
			return nil, nil
		}
		return find(ctx, d, w, whereOnly(q))
	}
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	if !q.Fetch {
		if _, err := w.exec(ctx, st.SQL, st.Args); err != nil {
			return nil, classify("update", q.Table, err)
		}
		return nil, nil
	}
	recs, err := queryRecords(ctx, w, st)
	if err != nil {
		return nil, classify("update", q.Table, err)
	}
	sqlgen.SortByPK(q.Table, recs)
	return recs, nil
}

func destroy(ctx context.Context, d *sqlgen.Dialect, w runner, q *datastore.Query) ([]datastore.Record, error) {
	st, err := sqlgen.Delete(d, q)
	if err != nil {
		return nil, fmt.Errorf("destroy: %w", err)
	}
	if !q.Fetch {
		if _, err := w.exec(ctx, st.SQL, st.Args); err != nil {
			return nil, fmt.Errorf("destroy %s: %w", q.Table.Name, err)
		}
		return nil, nil
	}
	recs, err := queryRecords(ctx, w, st)
	if err != nil {
		return nil, fmt.Errorf("destroy %s: %w", q.Table.Name, err)
	}
	sqlgen.SortByPK(q.Table, recs)
	return recs, nil
}

// whereOnly is q reduced to its table and where clause, for the rows an
// Update or Destroy touches.
func whereOnly(q *datastore.Query) *datastore.Query {
	return &datastore.Query{Table: q.Table, Where: q.Where, Limit: criteria.Unlimited}
}

// queryRecords runs st and reads its records: from the driver directly on
// either pool outside transactions (see rawStmts), through database/sql in them.
func queryRecords(ctx context.Context, r runner, st sqlgen.Stmt) ([]datastore.Record, error) {
	if r.tx == nil && r.cache.raw != nil {
		return r.cache.raw.records(ctx, r, st)
	}
	return sqlRecords(ctx, r, st)
}

// eachRow runs st and hands each row to each, as queryRecords reads them.
func eachRow(ctx context.Context, r runner, st sqlgen.Stmt, each func(*datastore.Row) error) error {
	if r.tx == nil && r.cache.raw != nil {
		return r.cache.raw.eachRow(ctx, r, st, each)
	}
	return sqlEachRow(ctx, r, st, each)
}

// sqlEachRow runs st through database/sql and hands each row to each.
func sqlEachRow(ctx context.Context, r runner, st sqlgen.Stmt, each func(*datastore.Row) error) error {
	rows, err := r.query(ctx, st.SQL, st.Args)
	if err != nil {
		return err
	}
	defer rows.Close()
	row := &datastore.Row{Columns: st.Columns, Nests: st.Nests, Values: make([]any, len(st.Columns))}
	ptrs := make([]any, len(st.Columns))
	for i := range ptrs {
		ptrs[i] = &row.Values[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := sqlgen.DecodeRow(row); err != nil {
			return err
		}
		if err := each(row); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sqlRecords runs st through database/sql and reads its records.
func sqlRecords(ctx context.Context, r runner, st sqlgen.Stmt) ([]datastore.Record, error) {
	out := []datastore.Record{}
	err := sqlEachRow(ctx, r, st, func(row *datastore.Row) error {
		out = append(out, sqlgen.RecordOf(row))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// classify turns a unique violation into *datastore.UniqueError, reading
// the columns from SQLite's message "UNIQUE constraint failed: t.a, t.b"
// (so a column whose name holds ", " is reported split).
func classify(op string, t *datastore.Table, err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("%s %s: %w", op, t.Name, err)
	}
	if c := se.Code(); c != sqlite3.SQLITE_CONSTRAINT_UNIQUE && c != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
		return fmt.Errorf("%s %s: %w", op, t.Name, err)
	}
	ue := &datastore.UniqueError{Table: t.Name, Err: err}
	msg := se.Error()
	const marker = "UNIQUE constraint failed: "
	if i := strings.Index(msg, marker); i >= 0 {
		list := msg[i+len(marker):]
		if j := strings.LastIndex(list, " ("); j >= 0 {
			list = list[:j]
		}
		for _, part := range strings.Split(list, ", ") {
			ue.Columns = append(ue.Columns, strings.TrimPrefix(part, t.Name+"."))
		}
	}
	return ue
}
