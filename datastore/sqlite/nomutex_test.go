package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"modernc.org/libc"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/skiffhq/skiff/datastore"
)

// TestConnectionsMultiThread: every connection of both pools runs in
// SQLite's multi-thread mode (no connection mutex). It fails when a driver
// version no longer lets multiThread find the connection's handle, which
// would leave them serialized: correct, but much slower.
func TestConnectionsMultiThread(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, datastore.Config{URL: filepath.Join(t.TempDir(), "mt.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tls := libc.NewTLS()
	defer tls.Close()
	for name, pool := range map[string]*sql.DB{"write": db.write, "read": db.read} {
		c, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Raw(func(dc any) error {
			h, ok := connHandle(dc.(sqlite.ExecQuerierContext))
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
