package mysql

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/datastoretest"
	"github.com/skiffhq/skiff/internal/testenv"
)

func openInternal(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Open(t.Context(), datastore.Config{URL: url})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestAdapterPortableInserts runs the conformance suite with creates that
// insert and then read back, the path MySQL 8 takes (it has no INSERT ...
// RETURNING), whatever server the tests run on.
func TestAdapterPortableInserts(t *testing.T) {
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter {
		db := openInternal(t, testenv.MySQLDatabase(t))
		db.inserts = nil
		return db
	})
}

// TestReturningMatchesReadBack checks that a row MariaDB returns from its
// INSERT is the row reading it back gives, for every kind and for a row of
// defaults, one record or several.
func TestReturningMatchesReadBack(t *testing.T) {
	db := openInternal(t, testenv.MySQLDatabase(t))
	if db.inserts == nil {
		t.Skip("the server has no INSERT ... RETURNING (MySQL)")
	}
	ctx := t.Context()
	tbl := &datastore.Table{Name: "kinds", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "s", Kind: datastore.String},
		{Name: "n", Kind: datastore.Number},
		{Name: "i", Kind: datastore.Integer},
		{Name: "b", Kind: datastore.Boolean},
		{Name: "j", Kind: datastore.JSON},
		{Name: "d", Kind: datastore.Number, Type: "decimal(10,2)"},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	recs := []datastore.Record{
		{"s": "Émile 🐙", "n": 1.5, "i": 1795709552779.0, "b": true, "j": map[string]any{"a": []any{1.0, "x"}}, "d": 12.345},
		{},
		{"s": "", "n": -0.25, "b": false, "j": "text"},
	}
	for _, batch := range [][]datastore.Record{recs[:1], recs[1:2], recs} {
		got, err := db.Create(ctx, tbl, batch)
		if err != nil {
			t.Fatalf("Create(%d records) = %v", len(batch), err)
		}
		if len(got) != len(batch) {
			t.Fatalf("Create(%d records) returned %d", len(batch), len(got))
		}
		for i, rec := range got {
			back, err := db.Find(ctx, &datastore.Query{Table: tbl, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: rec["id"]}, Limit: criteria.Unlimited})
			if err != nil || len(back) != 1 {
				t.Fatalf("Find(%v) = %v, %v", rec["id"], back, err)
			}
			if !reflect.DeepEqual(rec, back[0]) {
				t.Errorf("record %d of %d: Create returned %#v, Find reads %#v", i, len(batch), rec, back[0])
			}
		}
	}
	// A duplicate key in the second of several statements fails the
	// whole create, named as on the other path.
	u := &datastore.Table{Name: "uniq", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "email", Kind: datastore.String, Unique: true},
	}}
	if err := db.Define(ctx, []*datastore.Table{u}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	_, err := db.Create(ctx, u, []datastore.Record{{"email": "a"}, {"email": "a"}})
	var ue *datastore.UniqueError
	if !errors.As(err, &ue) || strings.Join(ue.Columns, ",") != "email" {
		t.Fatalf("Create(a duplicate) = %v, want a UniqueError on email", err)
	}
	if n, err := db.Count(ctx, &datastore.Query{Table: u}); err != nil || n != 0 {
		t.Errorf("after the failed create Count = %d, %v; want 0", n, err)
	}
}

// TestReadFallbacks checks the reads that database/sql makes when the
// driver will not: a statement too long for the client's packet limit,
// which database/sql prepares, and reads after the server closed the
// pool's idle connections.
func TestReadFallbacks(t *testing.T) {
	url := testenv.MySQLDatabase(t)
	db := openInternal(t, url+"?maxAllowedPacket=4096")
	ctx := t.Context()
	tbl := &datastore.Table{Name: "long", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "s", Kind: datastore.String},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 5000)
	// One INSERT ... RETURNING can be prepared; MySQL's INSERT and SELECT
	// in one query cannot, nor could they before reads took the driver's
	// rows.
	if db.inserts != nil {
		if got, err := db.Create(ctx, tbl, []datastore.Record{{"s": long}}); err != nil || len(got) != 1 || got[0]["s"] != long {
			t.Fatalf("Create(a long string) = %d records, %v", len(got), err)
		}
	} else if _, err := db.pool.ExecContext(ctx, "INSERT INTO `long` (s) VALUES (?)", long); err != nil {
		t.Fatal(err)
	}
	back, err := db.Find(ctx, &datastore.Query{Table: tbl, Where: &criteria.Cmp{Attr: "s", Op: criteria.Eq, Value: long}, Limit: criteria.Unlimited})
	if err != nil || len(back) == 0 || back[0]["s"] != long {
		t.Fatalf("Find(by a long string) = %d records, %v", len(back), err)
	}

	// Hold a few connections, so that the pool keeps them idle, then have
	// the server close them.
	var ids []int64
	var conns []interface{ Close() error }
	for range 3 {
		conn, err := db.pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids, conns = append(ids, id), append(conns, conn)
	}
	for _, c := range conns {
		c.Close()
	}
	killer := laxConn(t, url)
	for _, id := range ids {
		if _, err := killer.ExecContext(ctx, "KILL CONNECTION ?", id); err != nil {
			t.Fatalf("KILL %d: %v", id, err)
		}
	}
	for i := range 3 {
		got, err := db.Find(ctx, &datastore.Query{Table: tbl, Limit: criteria.Unlimited})
		if err != nil || len(got) == 0 {
			t.Fatalf("Find %d after the server closed the idle connections = %d records, %v", i, len(got), err)
		}
	}
}
