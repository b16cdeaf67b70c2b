package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
)

// tx is a transaction on one pooled connection.
type tx struct {
	sql *sql.Tx
}

// maxAttempts bounds how often InTx runs a function InnoDB chose as a
// deadlock victim.
const maxAttempts = 10

// InTx implements datastore.Adapter with a transaction at READ COMMITTED
// (see the package comment). It rolls back when fn returns an error or
// panics, or when the commit fails. When InnoDB reports a deadlock it has
// already rolled the transaction back, and another transaction went on:
// fn runs again in a new one, up to maxAttempts times in all, so that a
// deadlock reaches the caller only when it keeps recurring. fn must
// therefore start afresh each time it is called (the ORM's do).
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
	st, err := db.pool.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	done := false
	defer func() {
		if !done {
			st.Rollback()
		}
	}()
	t := &tx{sql: st}
	if err := fn(ctx, &session{db: db, q: st, tx: t}); err != nil {
		return err
	}
	done = true
	if err := st.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
