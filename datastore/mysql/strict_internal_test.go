package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/model"
)

// TestStrictSessions empties the server's global sql_mode, then checks
// that every connection of the adapter's pool is strict all the same, and
// that a value too long or out of range for its column is a 400 (an
// Invalid model.Error) where a lax session cuts or clamps it.
func TestStrictSessions(t *testing.T) {
	url := testenv.MySQLDatabase(t)
	testenv.MySQLLaxServer(t)
	ctx := t.Context()
	db, err := Open(ctx, datastore.Config{URL: url})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })

	// Connections held together are distinct ones, each opened under the
	// lax global mode.
	const n = 4
	seen := map[int64]bool{}
	for range n {
		conn, err := db.pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var id int64
		var mode string
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID(), @@SESSION.sql_mode").Scan(&id, &mode); err != nil {
			t.Fatal(err)
		}
		seen[id] = true
		for _, want := range []string{"STRICT_ALL_TABLES", "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO", "ONLY_FULL_GROUP_BY"} {
			if !strings.Contains(mode, want) {
				t.Errorf("connection %d: sql_mode = %q, want %s in it", id, mode, want)
			}
		}
	}
	if len(seen) != n {
		t.Fatalf("held %d connections, saw %d ids", n, len(seen))
	}

	tbl := &datastore.Table{Name: "fits", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "code", Kind: datastore.String, Type: "varchar(5)"},
		{Name: "small", Kind: datastore.Number, Type: "tinyint"},
		{Name: "email", Kind: datastore.String, Unique: true},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	recs, err := db.Create(ctx, tbl, []datastore.Record{{"code": "abcde", "small": 127.0, "email": "a"}})
	if err != nil {
		t.Fatalf("Create(values that fit) = %v", err)
	}
	tests := []struct {
		name, msg string
		rec       datastore.Record
	}{
		{"string past varchar(5)", "too long for the column code of fits (varchar(5))", datastore.Record{"code": "abcdef"}},
		{"4-byte characters past varchar(5)", "too long", datastore.Record{"code": "🐙🐙🐙🐙🐙🐙"}},
		{"number past tinyint", "out of range for the column small of fits (tinyint)", datastore.Record{"small": 300.0}},
		{"negative past tinyint", "out of range", datastore.Record{"small": -129.0}},
		{"indexed string past 255", "holds at most 255 characters", datastore.Record{"email": strings.Repeat("é", 256)}},
	}
	for _, tt := range tests {
		_, err := db.Create(ctx, tbl, []datastore.Record{tt.rec})
		var me *model.Error
		if model.KindOf(err) != model.Invalid || !errors.As(err, &me) || me.Code != model.CodeInvalidNewRecord || !strings.Contains(me.Msg, tt.msg) {
			t.Errorf("%s: Create = %v, want %s saying %q", tt.name, err, model.CodeInvalidNewRecord, tt.msg)
		}
		q := &datastore.Query{Table: tbl, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: recs[0]["id"]}, Limit: criteria.Unlimited}
		_, err = db.Update(ctx, q, tt.rec)
		if model.KindOf(err) != model.Invalid || !errors.As(err, &me) || me.Code != model.CodeInvalidValuesToSet {
			t.Errorf("%s: Update = %v, want %s", tt.name, err, model.CodeInvalidValuesToSet)
		}
	}
	got, err := db.Find(ctx, &datastore.Query{Table: tbl, Limit: criteria.Unlimited})
	if err != nil || len(got) != 1 || got[0]["code"] != "abcde" || got[0]["small"] != 127.0 {
		t.Errorf("after the refused writes Find = %v, %v; want the one record as created", got, err)
	}

	// The control: a session that takes the server's mode cuts the same
	// value, so the adapter's strictness is its own.
	lax := laxConn(t, url)
	if _, err := lax.ExecContext(ctx, "INSERT INTO fits (code) VALUES ('abcdef')"); err != nil {
		t.Fatalf("a lax session refused the over-long value (%v): the global mode is strict after all", err)
	}
}

// laxConn opens a connection to the database url names that sets no
// sql_mode of its own.
func laxConn(t *testing.T, url string) *sql.Conn {
	t.Helper()
	mc, err := parseConfig(datastore.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	mc.Params = nil
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		t.Fatal(err)
	}
	pool := sql.OpenDB(connector)
	t.Cleanup(func() { pool.Close() })
	conn, err := pool.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
