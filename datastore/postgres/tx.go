package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// tx is a transaction on one pooled connection that sends nothing until it
// must: BEGIN travels with the transaction's first statement, and deferred
// writes (see datastore.Deferrer) with its next statement or with COMMIT.
// Every round trip to the server is paid while the transaction may hold row
// locks, so a replace that locks and reads, then writes and commits, costs
// two where pgx.Tx, which waits for each statement, took five; one that is
// a single batch goes without BEGIN and COMMIT (see commitImplicit).
type tx struct {
	conn      *pgxpool.Conn
	begun     bool // BEGIN has been sent
	pending   []deferred
	noBitmaps bool // keyScansOnly was called
	noSeqs    bool // and seqScansBack not since
	early     bool // releaseLocksEarly was called
	ended     bool // commitWith committed
}

// errEnded answers statements sent after a transaction committed with its
// last batch: sent on their own they would run outside it.
var errEnded = errors.New("transaction already committed")

// deferred is a write queued until the transaction's next round trip.
type deferred struct {
	sql  string
	args []any
	// fail wraps the write's error as the call that queued it would have.
	fail func(error) error
	// settings marks a statement of setLocal's, which later settings join.
	settings bool
}

var _ querier = (*tx)(nil)

// later queues a write; its error, if any, is returned by the call that
// sends it.
func (t *tx) later(sql string, args []any, fail func(error) error) {
	t.pending = append(t.pending, deferred{sql: sql, args: args, fail: fail})
}

// keyScansOnly turns bitmap scans off for the rest of the transaction,
// and sequential scans until seqScansBack, with its next round trip. A
// change that locks rows then reads and writes a few rows found by key,
// often rows of a collection that changes again and again: the
// delete-and-insert of every replace leaves dead entries in the join
// table's index until vacuum comes by. A plain index scan marks those it
// meets as dead, so the next one skips them; a bitmap scan never does, and
// once the table has grown the planner prefers it, so every read of the
// collection wades through all the dead entries made since the last
// vacuum, with the locks held. Measured on the replace benchmark: 330
// requests/s with bitmap scans, 1,300 without. Sequential scans go while
// the rows are locked for a like reason: on tables without statistics (not
// yet analysed) the planner takes the ten keys of a lock for a good part of
// a small table and reads the whole table, hashed, where the key's index
// would do; the lock statement took 0.3 ms instead of 0.06 on 1,000
// children. They come back after the locks, since a later read on a
// column without an index would otherwise read the whole table through
// some other index.
func (t *tx) keyScansOnly() {
	if !t.noBitmaps {
		t.noBitmaps = true
		t.setLocal("enable_bitmapscan", "off")
	}
	if !t.noSeqs {
		t.noSeqs = true
		t.setLocal("enable_seqscan", "off")
	}
}

// seqScansBack ends the keyScansOnly ban on sequential scans with the
// transaction's next round trip.
func (t *tx) seqScansBack() {
	t.noSeqs = false
	t.setLocal("enable_seqscan", "on")
}

// setLocal sets the run-time parameter name to value until the
// transaction ends, with its next round trip. Settings queued one after
// the other go as one statement: each statement costs the server a round
// of parse, bind and execute, perhaps with locks held. name and value are
// the adapter's own constants, never a request's.
func (t *tx) setLocal(name, value string) {
	call := "set_config('" + name + "', '" + value + "', true)"
	if n := len(t.pending); n > 0 && t.pending[n-1].settings {
		t.pending[n-1].sql += ", " + call
		return
	}
	t.pending = append(t.pending, deferred{sql: "select " + call, settings: true, fail: func(err error) error { return fmt.Errorf("set run-time parameters: %w", err) }})
}

// releaseLocksEarly makes the transaction's COMMIT release its locks
// without waiting for its WAL to reach the disk, and commitWith wait for
// the disk just after, in the same round trip (see waitForDisk): the
// transaction still returns only once its change is durable, but a
// transaction queued for one of its locks, a concurrent replace of the
// same collection, runs during that wait instead of after it. What others
// read may then include a change the disk does not hold yet, for as long
// as one flush, as with InnoDB; should the server crash in that moment,
// the change is lost, and was never answered as made.
func (t *tx) releaseLocksEarly() {
	if !t.early {
		t.early = true
		t.setLocal("synchronous_commit", "off")
	}
}

// waitForDisk, run after the COMMIT of a transaction that released its
// locks early, returns once the WAL written before it, that COMMIT's
// included, is on disk (or on the synchronous standbys, as the session's
// synchronous_commit asks). PostgreSQL waits so at a commit only when the
// transaction has an id and wrote WAL; a transactional logical message
// gives this one both, for a few dozen bytes of WAL. Logical decoding
// passes the message on to its readers with the prefix "skiff".
const waitForDisk = "select pg_logical_emit_message(true, 'skiff', '')"

// direct reports whether a statement can go out on its own: nothing is
// waiting to be sent before it.
func (t *tx) direct() bool { return t.begun && len(t.pending) == 0 && !t.ended }

// Exec implements querier.
func (t *tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.direct() {
		return t.conn.Exec(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	br := t.SendBatch(ctx, b)
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

// Query implements querier.
func (t *tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.direct() {
		return t.conn.Query(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	br := t.SendBatch(ctx, b)
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// SendBatch implements querier: BEGIN, when not sent yet, and the pending
// writes go first in the same round trip.
func (t *tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.direct() {
		return t.conn.SendBatch(ctx, b)
	}
	if t.ended {
		return failedBatch{errEnded}
	}
	var prefix []deferred
	if !t.begun {
		prefix = append(prefix, deferred{sql: "begin", fail: func(err error) error { return fmt.Errorf("begin: %w", err) }})
	}
	prefix = append(prefix, t.pending...)
	t.begun, t.pending = true, nil
	return t.sendPrefixed(ctx, prefix, b)
}

// sendPrefixed sends prefix's statements, then b's, in one batch.
func (t *tx) sendPrefixed(ctx context.Context, prefix []deferred, b *pgx.Batch) *prefixedResults {
	all := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(prefix)+b.Len())}
	for _, d := range prefix {
		all.Queue(d.sql, d.args...)
	}
	all.QueuedQueries = append(all.QueuedQueries, b.QueuedQueries...)
	return &prefixedResults{br: t.conn.SendBatch(ctx, all), prefix: prefix}
}

// commit sends the pending writes and COMMIT in one round trip; a
// transaction that never sent anything, or that commitWith ended, has
// nothing to commit.
func (t *tx) commit(ctx context.Context) error {
	if t.ended || !t.begun && len(t.pending) == 0 {
		return nil
	}
	return t.commitWith(ctx, &pgx.Batch{}, func(pgx.BatchResults) error { return nil }, nil, nil)
}

// commitWith sends b's statements and COMMIT in one round trip (after
// BEGIN and the pending writes, as SendBatch does), so that the
// transaction's locks are released as soon as the server has run them;
// read reads the results of b's statements. A transaction that released
// its locks early waits for the disk after COMMIT (see waitForDisk), and
// fails if that wait does. The statements of after, when not nil, follow
// in the same round trip, outside the transaction; readAfter reads their
// results, and their failure leaves the commit as it is. Once it returns
// nil the transaction has ended and refuses anything more.
func (t *tx) commitWith(ctx context.Context, b *pgx.Batch, read func(pgx.BatchResults) error, after *pgx.Batch, readAfter func(pgx.BatchResults)) error {
	if !t.begun && after == nil && !t.ended && !t.early {
		return t.commitImplicit(ctx, b, read)
	}
	b.Queue("commit")
	if t.early {
		// A statement of its own after COMMIT: the transaction that
		// waits for the disk must not be the one holding the locks.
		b.Queue(waitForDisk)
	}
	if after != nil {
		b.QueuedQueries = append(b.QueuedQueries, after.QueuedQueries...)
	}
	br := t.SendBatch(ctx, b)
	err := read(br)
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = br.Exec()
	}
	if err == nil && t.early {
		// The change is made, but not known to be durable: the caller
		// may not answer it as made.
		if _, werr := br.Exec(); werr != nil {
			err = fmt.Errorf("wait for the commit to reach the disk: %w", werr)
		}
	}
	if err == nil && after != nil && tag.String() != "ROLLBACK" {
		readAfter(br)
		// An error closing now is the reads', after the commit.
		br.Close()
	} else if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A transaction a failed statement aborted answers COMMIT with
	// ROLLBACK and no error.
	if tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	t.ended = true
	return nil
}

// commitImplicit is commitWith for a transaction that is b alone: b goes
// without BEGIN and COMMIT, since PostgreSQL runs the statements of a
// pipeline up to its Sync as one transaction of their own, which it commits
// at the Sync, or rolls back at the first error, skipping the rest. That
// saves the server two statements, with the locks held. Whatever happens,
// the transaction has then ended: nothing is left to roll back.
func (t *tx) commitImplicit(ctx context.Context, b *pgx.Batch, read func(pgx.BatchResults) error) error {
	br := t.sendPrefixed(ctx, t.pending, b)
	t.pending, t.begun, t.ended = nil, true, true
	err := read(br)
	// Close reads what is left, and the error of the commit at the Sync.
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// rollback ends the transaction, dropping the pending writes. Should it
// fail, the pool destroys the connection on release rather than reuse one
// still inside a transaction.
func (t *tx) rollback(ctx context.Context) {
	t.pending = nil
	if t.begun && !t.ended {
		t.conn.Exec(ctx, "rollback")
	}
}

// prefixedResults are the results of a batch sent after a prefix of
// statements the caller did not queue: those are read first, and the first
// of their errors is what every later result reports, since the server
// skips the rest of a batch after an error.
type prefixedResults struct {
	br      pgx.BatchResults
	prefix  []deferred
	drained bool
	err     error
}

func (p *prefixedResults) drain() error {
	if !p.drained {
		p.drained = true
		for _, d := range p.prefix {
			if _, err := p.br.Exec(); err != nil {
				p.err = d.fail(err)
				break
			}
		}
	}
	return p.err
}

// Exec implements pgx.BatchResults.
func (p *prefixedResults) Exec() (pgconn.CommandTag, error) {
	if err := p.drain(); err != nil {
		return pgconn.CommandTag{}, err
	}
	return p.br.Exec()
}

// Query implements pgx.BatchResults.
func (p *prefixedResults) Query() (pgx.Rows, error) {
	if err := p.drain(); err != nil {
		return nil, err
	}
	return p.br.Query()
}

// QueryRow implements pgx.BatchResults.
func (p *prefixedResults) QueryRow() pgx.Row {
	if err := p.drain(); err != nil {
		return errRow{err}
	}
	return p.br.QueryRow()
}

// Close implements pgx.BatchResults.
func (p *prefixedResults) Close() error {
	err := p.drain()
	if cerr := p.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// Tx implements pgx.BatchResults: the batch began no pgx.Tx.
func (p *prefixedResults) Tx() pgx.Tx { return nil }

// failedBatch is the pgx.BatchResults of a batch that was never sent.
type failedBatch struct{ err error }

// Exec implements pgx.BatchResults.
func (f failedBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, f.err }

// Query implements pgx.BatchResults.
func (f failedBatch) Query() (pgx.Rows, error) { return nil, f.err }

// QueryRow implements pgx.BatchResults.
func (f failedBatch) QueryRow() pgx.Row { return errRow(f) }

// Close implements pgx.BatchResults.
func (f failedBatch) Close() error { return f.err }

// Tx implements pgx.BatchResults.
func (failedBatch) Tx() pgx.Tx { return nil }

// errRow is a pgx.Row that failed before it was read.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// batchRows are the rows of the last query of a batch; closing them closes
// the batch too.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

// Close implements pgx.Rows.
func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
}

// Err implements pgx.Rows.
func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}
