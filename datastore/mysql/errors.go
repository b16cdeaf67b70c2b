package mysql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
	"github.com/skiffhq/skiff/model"
)

// Server error numbers the adapter tells apart.
const (
	errDupEntry        = 1062 // ER_DUP_ENTRY
	errLockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT; MariaDB's answer to NOWAIT
	errDeadlock        = 1213 // ER_LOCK_DEADLOCK
	errLockNoWait      = 3572 // ER_LOCK_NOWAIT (MySQL 8)
	errRecordChanged   = 1020 // ER_CHECKREAD: MariaDB's snapshot isolation
	errDataTooLong     = 1406 // ER_DATA_TOO_LONG: a string past an indexed VARCHAR(255)
)

// errNumber returns the server error number of err, or 0.
func errNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// classify turns a duplicate key (1062) into *datastore.UniqueError. The
// columns come from the violated index's name, which Define derives from
// them (sqlgen.UniqueIndexes); "PRIMARY" is the primary key. MySQL 8 names
// the index table.index, MariaDB index alone.
func classify(op string, d *sqlgen.Dialect, t *datastore.Table, err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == errDataTooLong {
		// The client's value, not the server, is at fault: a 400, as
		// the other engines (whose strings have no length) never need.
		code := model.CodeInvalidNewRecord
		if op != "create" {
			code = model.CodeInvalidValuesToSet
		}
		return &model.Error{Kind: model.Invalid, Code: code, Err: err, Msg: fmt.Sprintf(
			"A value is too long for %s (%s): on MySQL an attribute that is unique or indexed holds at most 255 characters.", t.Name, me.Message)}
	}
	if !errors.As(err, &me) || me.Number != errDupEntry {
		return fmt.Errorf("%s %s: %w", op, t.Name, err)
	}
	ue := &datastore.UniqueError{Table: t.Name, Err: err}
	key := me.Message
	if i := strings.LastIndex(key, " for key '"); i >= 0 {
		key = strings.TrimSuffix(key[i+len(" for key '"):], "'")
	}
	key = strings.TrimPrefix(key, t.Name+".")
	if key == "PRIMARY" {
		ue.Columns = []string{t.PrimaryKey}
		return ue
	}
	for _, ix := range sqlgen.UniqueIndexes(d, t) {
		if ix.Name == key {
			ue.Columns = append([]string(nil), ix.Columns...)
			return ue
		}
	}
	return ue
}

// lockError adds datastore.ErrLockBusy to the error of a lock taken with
// NOWAIT that found a row locked: MySQL answers ER_LOCK_NOWAIT, MariaDB
// a lock wait timeout.
func lockError(err error, noWait bool) error {
	if n := errNumber(err); n == errLockNoWait || noWait && n == errLockWaitTimeout {
		return fmt.Errorf("%w: %w", datastore.ErrLockBusy, err)
	}
	return err
}

// retryable reports an error after which InnoDB has rolled the whole
// transaction back and running it again may succeed.
func retryable(err error) bool {
	n := errNumber(err)
	return n == errDeadlock || n == errRecordChanged
}
