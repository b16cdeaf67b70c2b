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
)

// Server error numbers of a value that does not fit its column, which the
// strict sql_mode makes errors rather than warnings over a value changed.
const (
	errDataTooLong     = 1406 // ER_DATA_TOO_LONG: a string past VARCHAR(n)
	errOutOfRange      = 1264 // ER_WARN_DATA_OUT_OF_RANGE: 300 in a TINYINT
	errDataTruncated   = 1265 // WARN_DATA_TRUNCATED: 'x' in an ENUM, a bad DECIMAL
	errWrongValue      = 1292 // ER_TRUNCATED_WRONG_VALUE: 'soon' in a DATETIME
	errWrongFieldValue = 1366 // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: 'abc' in an INT
)

// errNumber returns the server error number of err, or 0.
func errNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// classify turns a duplicate key (1062) into *datastore.UniqueError, and
// a value that does not fit its column into a 400 (see misfit). The
// columns of a duplicate come from the violated index's name, which Define
// derives from them (sqlgen.UniqueIndexes); "PRIMARY" is the primary key.
// MySQL 8 names the index table.index, MariaDB index alone.
func classify(op string, d *sqlgen.Dialect, t *datastore.Table, err error) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return fmt.Errorf("%s %s: %w", op, t.Name, err)
	}
	switch me.Number {
	case errDupEntry:
	case errDataTooLong, errOutOfRange, errDataTruncated, errWrongValue, errWrongFieldValue:
		return misfit(op, d, t, me)
	default:
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

// misfit is the error of a value that does not fit its column: the
// client's value, not the server, is at fault, so a 400, which the other
// engines (whose strings have no length) meet only with a columnType of
// their own. The message names the column but not the value, nor the
// database, which the server's may.
func misfit(op string, d *sqlgen.Dialect, t *datastore.Table, me *mysql.MySQLError) error {
	code := model.CodeInvalidNewRecord
	if op != "create" {
		code = model.CodeInvalidValuesToSet
	}
	what := "does not fit"
	switch me.Number {
	case errDataTooLong:
		what = "is too long for"
	case errOutOfRange:
		what = "is out of range for"
	}
	name := errColumn(me.Message)
	msg := fmt.Sprintf("A value %s the column %s of %s", what, name, t.Name)
	if c := t.Column(name); c != nil {
		switch typ := sqlgen.ColumnType(d, c); {
		case me.Number == errDataTooLong && typ == d.Types[datastore.String]:
			// Not the type asked for: the VARCHAR of an indexed string.
			msg += ": on MySQL a string attribute that is unique or indexed holds at most 255 characters"
		default:
			msg += " (" + typ + ")"
		}
	}
	return &model.Error{Kind: model.Invalid, Code: code, Err: fmt.Errorf("%s %s: %w", op, t.Name, me), Msg: msg + "."}
}

// errColumn reads the column's name from a server message: "... for
// column 'c' at row 1" (MySQL), "... for column `db`.`t`.`c` at row 1"
// (MariaDB's 1366), or "" when it names none.
func errColumn(msg string) string {
	_, rest, ok := strings.Cut(msg, " for column ")
	if !ok {
		return ""
	}
	rest, _, _ = strings.Cut(rest, " at row ")
	if i := strings.LastIndex(rest, "`.`"); i >= 0 {
		rest = rest[i+2:]
	}
	return strings.Trim(rest, "'`")
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
