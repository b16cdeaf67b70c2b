package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"reflect"
	"unsafe"

	"modernc.org/libc"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The driver opens every connection with SQLITE_OPEN_FULLMUTEX (SQLite's
// serialized mode) and offers no way to ask for SQLITE_OPEN_NOMUTEX. In
// serialized mode every sqlite3_column_* call, and each step, locks and
// unlocks the connection's mutex, which the transpiled library implements
// with modernc.org/libc's pthread emulation: in a list of 30 pets with
// their owners, about 17% of the request's CPU (go test -bench
// Request/floor-list -cpuprofile). Skiff never uses a connection from two
// goroutines at once (database/sql hands a connection to one caller at a
// time, rawStmts works inside Raw, and the driver itself is not safe
// otherwise), which is what multi-thread mode asks; sqlite3_interrupt,
// which the driver calls from its context watcher, takes no mutex in any
// mode. So each connection Skiff opens is switched to multi-thread mode
// right after it is opened: its mutex is removed, as SQLITE_OPEN_NOMUTEX
// would have left it (the static mutexes of SQLite's shared state, its
// allocator, VFS and page cache, stay). If a driver version no longer has
// the field this reads, connections stay serialized: slower, never
// unsafe (TestConnectionsMultiThread fails then).

// openPool opens a database/sql pool on dsn whose connections run in
// SQLite's multi-thread mode.
func openPool(dsn string) *sql.DB {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(multiThread)
	return sql.OpenDB(connector{d: d, dsn: dsn})
}

// connector opens connections on dsn with d.
type connector struct {
	d   *sqlite.Driver
	dsn string
}

// Connect opens a connection; the driver's open does not take a context.
func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.d.Open(c.dsn)
}

// Driver returns the driver that opens the connections.
func (c connector) Driver() driver.Driver { return c.d }

// multiThread removes the mutex of the connection the driver just opened
// (unlocked once sqlite3_open_v2 returned), putting it in multi-thread
// mode.
func multiThread(conn sqlite.ExecQuerierContext, _ string) error {
	db, ok := connHandle(conn)
	if !ok {
		return nil
	}
	tls := libc.NewTLS()
	defer tls.Close()
	m := sqlite3.Xsqlite3_db_mutex(tls, db)
	if m == 0 {
		return nil
	}
	var s sqlite3.Tsqlite3
	libc.Xmemset(tls, db+unsafe.Offsetof(s.Fmutex), 0, libc.Tsize_t(unsafe.Sizeof(s.Fmutex)))
	sqlite3.Xsqlite3_mutex_free(tls, m)
	return nil
}

// connHandle returns the sqlite3* of a driver connection: its unexported
// db field, which the driver exposes no other way.
func connHandle(conn sqlite.ExecQuerierContext) (uintptr, bool) {
	v := reflect.ValueOf(conn)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return 0, false
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return 0, false
	}
	return uintptr(f.Uint()), true
}
