// Package sqlite is Skiff's embedded datastore adapter, on the pure-Go
// SQLite driver modernc.org/sqlite (driver name "sqlite"), SQLite 3.35 or
// later.
//
// A DB keeps one write connection beside a pool of read-only connections.
// Writes queue for the write connection in Go instead of spinning on
// SQLITE_BUSY, and in WAL mode readers never wait for the writer, so many
// concurrent writers see neither lost rows nor "database is locked".
// Transactions (InTx) start with BEGIN IMMEDIATE on the write connection,
// and those that queue meanwhile share a commit (group.go).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
	"github.com/skiffhq/skiff/internal/sqliteconn"

	_ "modernc.org/sqlite" // registers driver "sqlite"
)

// DB is a SQLite datastore. It is safe for concurrent use.
type DB struct {
	d      *sqlgen.Dialect
	read   *sql.DB
	write  *sql.DB
	reads  *stmtCache
	writes *stmtCache
	// tmpDir holds a ":memory:" database; Close removes it.
	tmpDir string
	closed atomic.Bool
	// where is the database file for Describe ("" in memory).
	where string
	// group queues the transactions for the write connection (InTx).
	group committer
}

var (
	_ datastore.Adapter       = (*DB)(nil)
	_ datastore.ThroughFinder = (*DB)(nil)
	_ datastore.ThroughFinder = (*tx)(nil)
	_ datastore.JoinFinder    = (*DB)(nil)
	_ datastore.JoinFinder    = (*tx)(nil)
)

// Open opens (creating if needed) the database cfg describes: cfg.URL when
// set, a file path, a file: URI, or ":memory:" for a private temporary
// database that Close deletes; otherwise <cfg.Dir>/.tmp/<cfg.Name>.db,
// creating .tmp. cfg.Options may hold sails-disk's settings: dir replaces
// .tmp (relative to cfg.Dir unless absolute), and inMemoryOnly: true asks
// for the same private temporary database as ":memory:", so no data
// survives a restart. Files use WAL mode; foreign keys are off (Skiff keeps
// referential rules itself).
func Open(ctx context.Context, cfg datastore.Config) (*DB, error) {
	name, tmpDir, err := location(cfg)
	if err != nil {
		return nil, err
	}
	// _dqs=0: an unknown "column" must be an error, not a string literal.
	common := "_busy_timeout=10000&_foreign_keys=0&_synchronous=NORMAL&_dqs=0"
	// cache_size: the write connection's page cache is capped at 512 KiB
	// instead of SQLite's 2000 KiB. Its pages are never invalidated (it is
	// the only writer), so by default it keeps every page it wrote until
	// 2 MB are held, though most (a growing table's filled leaves) are not
	// wanted again, and the file is in the OS page cache anyway. Under the
	// floor's inserts (bench/floor.sh, 30,000 pets) it left 3.3 pread calls
	// per insert unchanged and 2-3 MiB less resident memory.
	write := sqliteconn.OpenDB(name + "_journal_mode=WAL&_txlock=immediate&_pragma=cache_size(-512)&" + common)
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	// The write connection goes first: it sets the journal mode, which
	// readers must not race to change.
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		removeTemp(tmpDir)
		return nil, fmt.Errorf("open sqlite %s: %w", name, err)
	}
	read := sqliteconn.OpenDB(name + "_query_only=1&" + common)
	n := max(4, 2*runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	where := ""
	if tmpDir == "" {
		where, _, _ = strings.Cut(strings.TrimPrefix(name, "file:"), "?")
	}
	reads := newStmtCache(read)
	reads.raw = newRawStmts(read)
	writes := newStmtCache(write)
	writes.raw = newRawStmts(write)
	return &DB{d: sqlgen.SQLite(), read: read, write: write, reads: reads, writes: writes, tmpDir: tmpDir, where: where}, nil
}

func removeTemp(dir string) {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// location returns the DSN prefix (ending in ?) for cfg, and the temporary
// directory to remove on Close for ":memory:".
//
// ":memory:" is a private database in a fresh temporary directory rather
// than one of SQLite's in-memory databases: those cannot let readers run
// beside a writer (shared-cache mode fails with "table is locked" instead
// of waiting, and the memdb VFS makes readers wait for every write
// transaction to end, so a read outside a transaction blocks until it
// commits). A WAL file behaves exactly like an ordinary file database, and
// without fsync on commit (synchronous=NORMAL) it costs little more.
func location(cfg datastore.Config) (string, string, error) {
	inMemory, dir, err := diskOptions(cfg.Options)
	if err != nil {
		return "", "", err
	}
	if inMemory && (cfg.URL != "" || dir != "") {
		return "", "", errors.New("open sqlite: inMemoryOnly keeps no file, so it cannot be combined with url or dir")
	}
	switch u := cfg.URL; {
	case inMemory || u == ":memory:" || u == "file::memory:":
		dir, err := os.MkdirTemp("", "skiff-sqlite-")
		if err != nil {
			return "", "", fmt.Errorf("open sqlite :memory:: %w", err)
		}
		return fileURI(filepath.Join(dir, "memory.db")), dir, nil
	case strings.HasPrefix(u, "file:"):
		if strings.Contains(u, "?") {
			return u + "&", "", nil
		}
		return u + "?", "", nil
	case u != "":
		return fileURI(u), "", nil
	}
	if cfg.Name == "" {
		return "", "", errors.New("open sqlite: datastore has neither url nor name")
	}
	if dir == "" {
		dir = ".tmp"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.Dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("open sqlite: %w", err)
	}
	return fileURI(filepath.Join(dir, cfg.Name+".db")), "", nil
}

// diskOptions reads the sails-disk settings a datastore may carry:
// inMemoryOnly and dir. Keys match in any case, as an environment
// variable's name (SKIFF_DATASTORES__X__INMEMORYONLY) may come lower-cased.
func diskOptions(options map[string]any) (inMemory bool, dir string, err error) {
	for k, v := range options {
		switch {
		case strings.EqualFold(k, "inMemoryOnly"):
			b, ok := v.(bool)
			if !ok {
				return false, "", fmt.Errorf("open sqlite: inMemoryOnly must be true or false, not %v", v)
			}
			inMemory = b
		case strings.EqualFold(k, "dir"):
			s, ok := v.(string)
			if !ok {
				return false, "", fmt.Errorf("open sqlite: dir must be a folder path, not %v", v)
			}
			dir = s
		}
	}
	return inMemory, dir, nil
}

func fileURI(path string) string {
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?"
}

// Close closes every connection. Calls after the first return nil; other
// methods then return datastore.ErrClosed.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.reads.close()
	db.writes.close()
	err := errors.Join(db.read.Close(), db.write.Close())
	removeTemp(db.tmpDir)
	if err != nil {
		return fmt.Errorf("close sqlite: %w", err)
	}
	return nil
}

func (db *DB) check() error {
	if db.closed.Load() {
		return datastore.ErrClosed
	}
	return nil
}
