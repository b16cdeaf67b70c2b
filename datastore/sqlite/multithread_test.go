package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"modernc.org/libc"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqliteconn"
)

// TestConnectionsMultiThread: every connection of both pools runs in
// SQLite's multi-thread mode (no connection mutex). It fails when a driver
// version no longer lets multiThread find the connection's handle, which
// would leave them serialized: correct, but much slower.
func TestConnectionsMultiThread(t *testing.T) {
	ctx := context.Background()
	db := openFile(t)
	tls := libc.NewTLS()
	defer tls.Close()
	for name, pool := range map[string]*sql.DB{"write": db.write, "read": db.read} {
		c, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Raw(func(dc any) error {
			h, ok := sqliteconn.Handle(dc.(sqlite.ExecQuerierContext))
			if !ok {
				t.Errorf("%s: no sqlite3 handle found in the driver's connection", name)
				return nil
			}
			if m := sqlite3.Xsqlite3_db_mutex(tls, h); m != 0 {
				t.Errorf("%s: the connection still has its mutex (serialized mode)", name)
			}
			return nil
		})
		c.Close()
		if err != nil {
			t.Fatal(name, err)
		}
	}
	// The handle is the connection's own: a query on it works after.
	var n int
	if err := db.read.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("query after the switch: %d, %v", n, err)
	}
}

// TestMultiThreadConcurrentUse: readers, a writer and reads whose context
// is cancelled under way share the pools at once, and every read sees a
// consistent table. Under the race detector (CI runs it) this checks that
// no connection is used from two goroutines, which multi-thread mode no
// longer serialises, including the driver's interrupt on cancellation.
func TestMultiThreadConcurrentUse(t *testing.T) {
	ctx := context.Background()
	db := openFile(t)
	tbl := &datastore.Table{
		Name:       "item",
		PrimaryKey: "id",
		Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
			{Name: "name", Kind: datastore.String},
		},
	}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	const writes = 200
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range writes {
			if _, err := db.Create(ctx, tbl, []datastore.Record{{"name": fmt.Sprint("item ", i)}}); err != nil {
				t.Errorf("create %d: %v", i, err)
				return
			}
		}
	})
	for r := range 4 {
		wg.Go(func() {
			for i := range 150 {
				rctx, cancel := context.WithCancel(ctx)
				if (i+r)%5 == 0 {
					// Cancelled while it runs, or before: either way
					// the connection must come back usable.
					go cancel()
				}
				recs, err := db.Find(rctx, &datastore.Query{Table: tbl, Limit: criteria.Unlimited})
				cancel()
				if err != nil {
					if rctx.Err() != nil {
						continue
					}
					t.Errorf("find: %v", err)
					return
				}
				// The writer's records are committed in order: a read
				// sees the first len(recs) of them, whatever its order.
				names := make(map[any]bool, len(recs))
				for _, rec := range recs {
					names[rec["name"]] = true
				}
				for j := range recs {
					if want := fmt.Sprint("item ", j); !names[want] {
						t.Errorf("a read of %d records lacks %q", len(recs), want)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	recs, err := db.Find(ctx, &datastore.Query{Table: tbl, Limit: criteria.Unlimited})
	if err != nil || len(recs) != writes {
		t.Fatalf("after: %d records, %v; want %d", len(recs), err, writes)
	}
}

// openFile opens a database in a new file of the test's, closed when the
// test ends.
func openFile(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), datastore.Config{URL: filepath.Join(t.TempDir(), "mt.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
