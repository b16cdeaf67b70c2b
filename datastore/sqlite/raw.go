package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// Reads on the read pool take their rows from the driver directly
// (sql.Conn.Raw) rather than through sql.Stmt and sql.Rows: database/sql
// finds the statement's copy for the connection under a lock, starts a
// goroutine per query to watch the context (which the driver watches
// already), takes a lock per row and converts every value once more in
// Scan. Without them a request through the handler took 4-8% fewer
// instructions (bench/instructions.sh against 2c3b5bd: product-42 0.923,
// pet-42 0.952, pet-list 0.963) and 3-11 fewer allocations.
// The statements stay prepared, one per connection and SQL text, as
// database/sql kept them: the driver's own QueryContext prepares the text
// again each time. Writes that return rows (a create's INSERT ...
// RETURNING) take the same path on the write connection, outside
// transactions: POST /pet 0.985x the instructions, 161 -> 154 allocations.
// Transactions and writes returning nothing keep database/sql
// (runner.query, runner.exec).

// rawStmts holds a pool's prepared driver statements, per driver
// connection. A connection's statements are used only inside Raw, which
// gives it to one caller at a time, so only the map of connections needs
// the lock.
type rawStmts struct {
	pool *sql.DB
	mu   sync.Mutex
	// conns holds each driver connection's statements; gen counts the
	// forgets, and a connection's statements of an older generation are
	// closed at its next use.
	conns  map[driver.Conn]*connStmts
	gen    int
	closed bool
}

// connStmts are one driver connection's prepared statements, and the
// argument and row buffers its reads reuse: a read holds the connection
// alone (Raw), and the driver is done with both once the rows are closed.
type connStmts struct {
	gen  int
	busy bool
	m    map[string]driver.Stmt
	args []driver.NamedValue
	dest []driver.Value
}

func newRawStmts(pool *sql.DB) *rawStmts {
	return &rawStmts{pool: pool, conns: make(map[driver.Conn]*connStmts)}
}

// take returns dc's statements, marked busy, after closing those a forget
// outdated.
func (s *rawStmts) take(dc driver.Conn) *connStmts {
	s.mu.Lock()
	cs := s.conns[dc]
	if cs == nil {
		cs = &connStmts{gen: s.gen, m: make(map[string]driver.Stmt)}
		s.conns[dc] = cs
	}
	var stale map[string]driver.Stmt
	if cs.gen != s.gen {
		stale, cs.m, cs.gen = cs.m, make(map[string]driver.Stmt), s.gen
	}
	cs.busy = true
	s.mu.Unlock()
	closeStmts(stale)
	return cs
}

// give ends a use of dc's statements cs. Once the cache is closed they are
// closed with it: close could not, while they were in use.
func (s *rawStmts) give(dc driver.Conn, cs *connStmts) {
	s.mu.Lock()
	cs.busy = false
	var stale map[string]driver.Stmt
	if s.closed {
		stale = cs.m
		cs.m = nil
		delete(s.conns, dc)
	}
	s.mu.Unlock()
	closeStmts(stale)
}

// forget outdates every statement, after schema changes.
func (s *rawStmts) forget() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
}

// close closes every statement before the pool is closed (a connection
// closed with statements left open stays open in SQLite). A statement is
// closed on its own connection, taken from the pool, never beside a query
// running there; the connections are taken together, so that the pool
// hands out each of them.
func (s *rawStmts) close() {
	s.mu.Lock()
	s.closed = true
	n := len(s.conns)
	s.mu.Unlock()
	if n == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range s.pool.Stats().MaxOpenConnections {
		c, err := s.pool.Conn(ctx)
		if err != nil {
			return
		}
		held = append(held, c)
		_ = c.Raw(func(dc any) error {
			s.mu.Lock()
			cs := s.conns[dc.(driver.Conn)]
			delete(s.conns, dc.(driver.Conn))
			n = len(s.conns)
			s.mu.Unlock()
			if cs != nil {
				closeStmts(cs.m)
			}
			return nil
		})
		if n == 0 {
			return
		}
	}
}

func closeStmts(m map[string]driver.Stmt) {
	for _, st := range m {
		st.Close()
	}
}

// records runs st on a pooled connection and reads its records. It falls
// back to database/sql for a connection the driver reports bad before
// anything was read, as database/sql would retry it.
func (s *rawStmts) records(ctx context.Context, r runner, st sqlgen.Stmt) ([]datastore.Record, error) {
	var recs []datastore.Record
	answered, err := s.query(ctx, st, func(rows driver.Rows, dest []driver.Value) error {
		var err error
		recs, err = readRows(rows, dest, st)
		return err
	})
	if retry(answered, err) {
		return sqlRecords(ctx, r, st)
	}
	return recs, err
}

// eachRow is records handing each row to each (see datastore.RowFinder)
// instead of making it a record.
func (s *rawStmts) eachRow(ctx context.Context, r runner, st sqlgen.Stmt, each func(*datastore.Row) error) error {
	answered, err := s.query(ctx, st, func(rows driver.Rows, dest []driver.Value) error {
		if err := checkColumns(rows, st); err != nil {
			return err
		}
		return sqlgen.DriverRows(rows, dest, st.Columns, st.Nests, sqlgen.Decode, each)
	})
	if retry(answered, err) {
		return sqlEachRow(ctx, r, st, each)
	}
	return err
}

// retry reports whether a read that failed with err should run again
// through database/sql: the driver refused the connection or the raw path
// before the query was answered.
func retry(answered bool, err error) bool {
	return err != nil && !answered && (errors.Is(err, driver.ErrSkip) || errors.Is(err, driver.ErrBadConn))
}

// query runs st on a pooled connection and hands its rows to read, with a
// buffer of len(st.Columns) to read each row into. answered reports
// whether the query ran, so that a failure before it can be retried.
func (s *rawStmts) query(ctx context.Context, st sqlgen.Stmt, read func(rows driver.Rows, dest []driver.Value) error) (answered bool, err error) {
	conn, err := s.pool.Conn(ctx)
	if err != nil {
		return false, err
	}
	err = conn.Raw(func(dc any) error {
		d, ok := dc.(driver.Conn)
		if !ok {
			return driver.ErrSkip
		}
		cs := s.take(d)
		defer s.give(d, cs)
		ds, err := cs.prepare(ctx, d, st.SQL)
		if err != nil {
			return err
		}
		q, ok := ds.(driver.StmtQueryContext)
		if !ok {
			return driver.ErrSkip
		}
		args, err := appendNamedValues(cs.args[:0], st.Args)
		cs.args = args
		defer clear(args) // nothing kept alive by the buffer
		if err != nil {
			return err
		}
		if len(args) == 0 {
			args = nil // as database/sql passes no arguments
		}
		rows, err := q.QueryContext(ctx, args)
		if err != nil {
			return err
		}
		answered = true
		if cap(cs.dest) < len(st.Columns) {
			cs.dest = make([]driver.Value, len(st.Columns))
		}
		dest := cs.dest[:len(st.Columns)]
		defer clear(dest)
		err = read(rows, dest)
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		return err
	})
	conn.Close()
	return answered, err
}

// prepare returns the connection d's statement for query, preparing it on
// first use. Past maxCachedStmts statements the connection's are all
// closed and the cache starts afresh: query shapes are few, so that is
// rare, and which statements are old is not kept.
func (cs *connStmts) prepare(ctx context.Context, d driver.Conn, query string) (driver.Stmt, error) {
	if st, ok := cs.m[query]; ok {
		return st, nil
	}
	var st driver.Stmt
	var err error
	if p, ok := d.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = d.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	if len(cs.m) >= maxCachedStmts {
		closeStmts(cs.m)
		clear(cs.m)
	}
	cs.m[query] = st
	return st, nil
}

// appendNamedValues appends args to named, converted as database/sql
// converts them for this driver, which checks no values itself.
func appendNamedValues(named []driver.NamedValue, args []any) ([]driver.NamedValue, error) {
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return named, fmt.Errorf("argument %d: %w", i+1, err)
		}
		named = append(named, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	return named, nil
}

// readRows reads the rows of st, whose columns are st.Columns, the
// columns of joined rows nested as st.Nests say (see sqlgen.NestedRecord),
// as scan does, each row into dest, of len(st.Columns).
func readRows(rows driver.Rows, dest []driver.Value, st sqlgen.Stmt) ([]datastore.Record, error) {
	if err := checkColumns(rows, st); err != nil {
		return nil, err
	}
	return sqlgen.DriverRecords(rows, dest, st.Columns, st.Nests, st.MaxRows, sqlgen.Decode)
}

// checkColumns fails, as database/sql's Scan would, when rows do not have
// the columns st expects.
func checkColumns(rows driver.Rows, st sqlgen.Stmt) error {
	if n := len(rows.Columns()); n != len(st.Columns) {
		return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", n, len(st.Columns))
	}
	return nil
}
