package sqlite_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/datastoretest"
	"github.com/skiffhq/skiff/datastore/sqlite"
)

func open(t testing.TB, cfg datastore.Config) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open(%+v) = %v", cfg, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAdapterFile(t *testing.T) {
	dir := t.TempDir()
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter {
		// One file per subtest, through the Dir/Name convention.
		return open(t, datastore.Config{Name: "db", Dir: filepath.Join(dir, filepath.Base(t.Name()))})
	})
}

func TestAdapterMemory(t *testing.T) {
	shared := open(t, datastore.Config{URL: ":memory:"})
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter { return shared })
}

func TestMemoryIsPrivate(t *testing.T) {
	a := open(t, datastore.Config{URL: ":memory:"})
	b := open(t, datastore.Config{URL: ":memory:"})
	tbl := &datastore.Table{Name: "t", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true},
	}}
	if err := a.Define(t.Context(), []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Count(t.Context(), &datastore.Query{Table: tbl}); err == nil {
		t.Errorf("second :memory: database sees the first one's table")
	}
}

func TestOpenPaths(t *testing.T) {
	dir := t.TempDir()
	for _, cfg := range []datastore.Config{
		{Name: "app", Dir: dir},
		{URL: filepath.Join(dir, "with space?and#hash.db")},
	} {
		db := open(t, cfg)
		if err := db.Define(t.Context(), nil, datastore.MigrateDrop); err != nil {
			t.Errorf("Define on %+v = %v", cfg, err)
		}
	}
	if _, err := filepath.Glob(filepath.Join(dir, ".tmp", "app.db")); err != nil {
		t.Fatal(err)
	}
}

func TestClosed(t *testing.T) {
	db := open(t, datastore.Config{URL: ":memory:"})
	if err := db.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if _, err := db.Count(t.Context(), &datastore.Query{}); err != datastore.ErrClosed {
		t.Errorf("Count after Close = %v, want ErrClosed", err)
	}
}

func benchDB(b *testing.B) *sqlite.DB {
	return open(b, datastore.Config{Name: "bench", Dir: b.TempDir()})
}

func BenchmarkFindByPK(b *testing.B)   { datastoretest.BenchFindByPK(b, benchDB(b)) }
func BenchmarkFindList30(b *testing.B) { datastoretest.BenchFindList30(b, benchDB(b)) }
func BenchmarkCreate(b *testing.B)     { datastoretest.BenchCreate(b, benchDB(b)) }

// sails-disk's inMemoryOnly: every connection sees the data, no file is
// left in the app folder, and nothing survives a restart.
func TestInMemoryOnly(t *testing.T) {
	dir := t.TempDir()
	cfg := datastore.Config{Name: "app", Dir: dir, Options: map[string]any{"inMemoryOnly": true}}
	tbl := &datastore.Table{Name: "t", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true},
	}}
	db, err := sqlite.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Define(t.Context(), []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Create(t.Context(), tbl, []datastore.Record{{}, {}}); err != nil {
		t.Fatal(err)
	}
	// Counts go through the read pool, the write through its own connection.
	for range 8 {
		if n, err := db.Count(t.Context(), &datastore.Query{Table: tbl}); err != nil || n != 2 {
			t.Fatalf("Count = %d, %v; want 2", n, err)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*", "*")); len(files) != 0 {
		t.Errorf("inMemoryOnly left files in the app folder: %q", files)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, cfg)
	if _, err := again.Count(t.Context(), &datastore.Query{Table: tbl}); err == nil {
		t.Errorf("the table survived a restart of an inMemoryOnly datastore")
	}
	if _, err := sqlite.Open(t.Context(), datastore.Config{Name: "x", URL: "x.db", Options: map[string]any{"inmemoryonly": true}}); err == nil {
		t.Errorf("Open(inMemoryOnly with url) succeeded, want an error")
	}
}

// sails-disk's dir: the folder of the database files, inside the app folder.
func TestDiskDir(t *testing.T) {
	dir := t.TempDir()
	db := open(t, datastore.Config{Name: "app", Dir: dir, Options: map[string]any{"dir": "data/db"}})
	if err := db.Define(t.Context(), nil, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "data", "db", "app.db")); len(files) != 1 {
		t.Errorf("dir data/db: no app.db in %s/data/db", dir)
	}
}

// TestCloseReleasesFile checks that Close closes the statements reads
// prepared on the read pool's connections (raw.go): a connection closed
// with statements left open stays open in SQLite, holding its file.
func TestCloseReleasesFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	path := filepath.Join(t.TempDir(), "close.db")
	db, err := sqlite.Open(t.Context(), datastore.Config{URL: path})
	if err != nil {
		t.Fatal(err)
	}
	tbl := &datastore.Table{Name: "t", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true},
	}}
	if err := db.Define(t.Context(), []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Create(t.Context(), tbl, []datastore.Record{{}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 { // several read connections, each with its statement
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if recs, err := db.Find(t.Context(), &datastore.Query{Table: tbl, Limit: criteria.Unlimited}); err != nil || len(recs) != 1 {
					t.Errorf("Find = %v, %v; want one record", recs, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, path) {
			t.Errorf("after Close, fd %s is still open on %s", fd.Name(), target)
		}
	}
}
