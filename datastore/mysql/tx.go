package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/skiffhq/skiff/datastore"
)

// tx is a transaction on one pooled connection that sends nothing until it
// must: START TRANSACTION travels with the transaction's first statement,
// and deferred writes (datastore.Deferrer) with its next statement or with
// COMMIT, as one multi-statement query. Every round trip is paid while the
// transaction may hold row locks, so a replace that locks and reads, then
// writes and commits, costs two round trips instead of a dozen.
type tx struct {
	conn    *sql.Conn
	begun   bool // START TRANSACTION has been sent
	pending []deferred
	ended   bool // COMMIT has been sent and succeeded
}

// deferred is a write queued until the transaction's next round trip.
type deferred struct {
	sql  string
	args []any
	// fail wraps the write's error as the call that queued it would have.
	fail func(error) error
}

var _ querier = (*tx)(nil)

// errEnded answers statements sent after the transaction committed.
var errEnded = errors.New("transaction already committed")

// later queues a write; its error, if any, is returned by the call that
// sends it.
func (t *tx) later(sql string, args []any, fail func(error) error) {
	t.pending = append(t.pending, deferred{sql: sql, args: args, fail: fail})
}

// prefixed returns query preceded by START TRANSACTION, when not sent
// yet, and the pending writes, as one multi-statement query, and marks
// them sent. The driver skips the results of statements that return no
// rows, so the query's own rows come first.
func (t *tx) prefixed(query string, args []any) (string, []any, []deferred) {
	if t.begun && len(t.pending) == 0 {
		return query, args, nil
	}
	var sb strings.Builder
	var all []any
	if !t.begun {
		sb.WriteString("START TRANSACTION; ")
		t.begun = true
	}
	sent := t.pending
	t.pending = nil
	for _, d := range sent {
		sb.WriteString(d.sql)
		sb.WriteString("; ")
		all = append(all, d.args...)
	}
	sb.WriteString(query)
	return sb.String(), append(all, args...), sent
}

// blame returns err as the call whose write caused it would have: the
// server stops a multi-statement query at its first error without saying
// which statement it was, so a duplicate key goes to the write whose
// table has that key, anything else to the first write sent.
func blame(err error, sent []deferred) error {
	if len(sent) == 0 {
		return err
	}
	if errNumber(err) == errDupEntry {
		for _, d := range sent {
			var ue *datastore.UniqueError
			if e := d.fail(err); errors.As(e, &ue) && ue.Columns != nil {
				return e
			}
		}
	}
	return sent[0].fail(err)
}

// ExecContext implements querier.
func (t *tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if t.ended {
		return nil, errEnded
	}
	q, all, sent := t.prefixed(query, args)
	res, err := t.conn.ExecContext(ctx, q, all...)
	if err != nil {
		return nil, blame(err, sent)
	}
	return res, nil
}

// QueryContext implements querier.
func (t *tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if t.ended {
		return nil, errEnded
	}
	q, all, sent := t.prefixed(query, args)
	rows, err := t.conn.QueryContext(ctx, q, all...)
	if err != nil {
		return nil, blame(err, sent)
	}
	return rows, nil
}

// commit sends the pending writes and COMMIT in one round trip; a
// transaction that never sent anything has nothing to commit.
func (t *tx) commit(ctx context.Context) error {
	if t.ended || !t.begun && len(t.pending) == 0 {
		return nil
	}
	if _, err := t.ExecContext(ctx, "COMMIT"); err != nil {
		return err
	}
	t.ended = true
	return nil
}

// rollback ends the transaction, dropping the pending writes. Should it
// fail, the connection is discarded rather than reused while still inside
// a transaction.
func (t *tx) rollback(ctx context.Context) {
	t.pending = nil
	if t.begun && !t.ended {
		if _, err := t.conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}
}

// maxAttempts bounds how often InTx runs a function InnoDB chose as a
// deadlock victim.
const maxAttempts = 10

// InTx implements datastore.Adapter with a transaction at READ COMMITTED
// (see the package comment) whose START TRANSACTION travels with its first
// statement and whose deferred writes travel with COMMIT (see tx). It
// rolls back when fn returns an error or panics, or when the commit fails.
// When InnoDB reports a deadlock it has already rolled the transaction
// back, and another transaction went on: fn runs again in a new one, up to
// maxAttempts times in all, so that a deadlock reaches the caller only
// when it keeps recurring. fn must therefore start afresh each time it is
// called (the ORM's do).
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	if err := db.check(); err != nil {
		return err
	}
	var err error
	for attempt := 1; ; attempt++ {
		err = db.runTx(ctx, fn)
		if err == nil || attempt == maxAttempts || !retryable(err) || ctx.Err() != nil {
			return err
		}
	}
}

func (db *DB) runTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	conn, err := db.pool.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	t := &tx{conn: conn}
	done := false
	defer func() {
		if !done {
			t.rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := fn(ctx, &session{db: db, q: t, tx: t}); err != nil {
		return err
	}
	if err := t.commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	done = true
	return nil
}
