package mysql_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/mysql"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/model"
)

// TestText checks what the collation must give: 4-byte characters stored
// and read back whole, case-sensitive comparison, like and sort by code
// point, trailing spaces that count, and unique keys that tell case apart.
func TestText(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	tbl := &datastore.Table{Name: "words", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "w", Kind: datastore.String},
		{Name: "u", Kind: datastore.String, Unique: true},
		{Name: "j", Kind: datastore.JSON, Merge: true},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	words := []string{"Apple", "apple", "Émile", "émile", "zoo 🐙", "ZOO", "a ", "a"}
	for _, w := range words {
		recs, err := db.Create(ctx, tbl, []datastore.Record{{"w": w, "u": w, "j": map[string]any{"w": w}}})
		if err != nil {
			t.Fatalf("Create(%q) = %v", w, err)
		}
		if recs[0]["w"] != w || recs[0]["u"] != w {
			t.Errorf("Create(%q) read back %q", w, recs[0]["w"])
		}
	}
	ids := func(e criteria.Expr, sort ...criteria.Sort) []string {
		t.Helper()
		recs, err := db.Find(ctx, &datastore.Query{Table: tbl, Where: e, Sort: sort, Limit: criteria.Unlimited})
		if err != nil {
			t.Fatalf("Find = %v", err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r["w"].(string))
		}
		return out
	}
	cmpx := func(attr, key string, op criteria.Op, v any) *criteria.Cmp {
		return &criteria.Cmp{Attr: attr, Key: key, Op: op, Value: v}
	}
	tests := []struct {
		name string
		e    criteria.Expr
		want []string
	}{
		{"eq is case-sensitive", cmpx("w", "", criteria.Eq, "apple"), []string{"apple"}},
		{"eq non-ASCII", cmpx("w", "", criteria.Eq, "émile"), []string{"émile"}},
		{"eq trailing space counts", cmpx("w", "", criteria.Eq, "a"), []string{"a"}},
		{"startsWith", cmpx("w", "", criteria.Like, "A%"), []string{"Apple"}},
		{"contains non-ASCII", cmpx("w", "", criteria.Like, "%mil%"), []string{"Émile", "émile"}},
		{"startsWith non-ASCII case", cmpx("w", "", criteria.Like, "É%"), []string{"Émile"}},
		{"endsWith emoji", cmpx("w", "", criteria.Like, "%🐙"), []string{"zoo 🐙"}},
		{"like underscore is literal", cmpx("w", "", criteria.Like, "a_"), nil},
		{"json key eq", cmpx("j", "w", criteria.Eq, "ZOO"), []string{"ZOO"}},
		{"json key like", cmpx("j", "w", criteria.Like, "%🐙"), []string{"zoo 🐙"}},
		{"json key like case", cmpx("j", "w", criteria.Like, "z%"), []string{"zoo 🐙"}},
	}
	for _, tt := range tests {
		if got := ids(tt.e); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	sorted := ids(nil, criteria.Sort{Attr: "w"})
	want := []string{"Apple", "ZOO", "a", "a ", "apple", "zoo 🐙", "Émile", "émile"}
	if !cmp.Equal(sorted, want) {
		t.Errorf("sort by code point: got %q, want %q", sorted, want)
	}
	_, err := db.Create(ctx, tbl, []datastore.Record{{"w": "x", "u": "ZOO"}})
	var ue *datastore.UniqueError
	if !errors.As(err, &ue) || !cmp.Equal(ue.Columns, []string{"u"}) {
		t.Errorf("Create(duplicate) = %v, want a UniqueError on [u]", err)
	}
	// An indexed string holds 255 characters: a longer one is the client's
	// mistake (400), not a server failure.
	_, err = db.Create(ctx, tbl, []datastore.Record{{"w": "x", "u": strings.Repeat("y", 256)}})
	if model.KindOf(err) != model.Invalid {
		t.Errorf("Create(256-character unique string) = %v, want an Invalid model.Error", err)
	}
}

// TestOpenErrors checks that the first mistakes of a new user say what is
// wrong.
func TestOpenErrors(t *testing.T) {
	base, err := url.Parse(testenv.MySQLDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	wrongPass := *base
	wrongPass.User = url.UserPassword("root", "not-the-password")
	noDB := *base
	noDB.Path = "/skiff_no_such_database"
	tests := []struct {
		name, url, want string
	}{
		{"no url", "", "url is required"},
		{"no database", "mysql://root@127.0.0.1:3306/", "names no database"},
		{"wrong scheme", "mysqlx://root@127.0.0.1/x", "want mysql://"},
		{"wrong password", wrongPass.String(), "wrong user name or password"},
		{"missing database", noDB.String(), `database "skiff_no_such_database" does not exist`},
		{"unreachable", "mysql://root@127.0.0.1:1/app?timeout=2s", "cannot reach the server at 127.0.0.1:1"},
		{"charset", base.String() + "?charset=latin1", "utf8mb4"},
	}
	for _, tt := range tests {
		_, err := mysql.Open(t.Context(), datastore.Config{URL: tt.url})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Open(%s) = %v, want an error with %q", tt.name, tt.url, err, tt.want)
		}
	}
	db, err := mysql.Open(t.Context(), datastore.Config{URL: strings.Replace(base.String(), "mysql://", "mariadb://", 1)})
	if err != nil {
		t.Fatalf("Open(mariadb://) = %v", err)
	}
	db.Close()
}

// TestSSLOption checks sails-mysql's ssl setting: TLS asked of a server
// without it fails to connect, and certificate keys are refused.
func TestSSLOption(t *testing.T) {
	u := testenv.MySQLDatabase(t)
	if _, err := mysql.Open(t.Context(), datastore.Config{URL: u, Options: map[string]any{"ssl": map[string]any{"ca": "x.pem"}}}); err == nil || !strings.Contains(err.Error(), "ssl.ca is not supported") {
		t.Errorf("Open(ssl.ca) = %v, want a refusal", err)
	}
	if _, err := mysql.Open(t.Context(), datastore.Config{URL: u, Options: map[string]any{"ssl": "yes"}}); err == nil {
		t.Errorf("Open(ssl: yes) = nil error, want a refusal")
	}
	db, err := mysql.Open(t.Context(), datastore.Config{URL: u, Options: map[string]any{"ssl": false}})
	if err != nil {
		t.Fatalf("Open(ssl: false) = %v", err)
	}
	db.Close()
}

// TestAlterIndexesText checks that migrate: alter can make an existing
// text column unique: it becomes a VARCHAR first.
func TestAlterIndexesText(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	tbl := &datastore.Table{Name: "people", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "email", Kind: datastore.String},
	}}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Create(ctx, tbl, []datastore.Record{{"email": "a@x"}}); err != nil {
		t.Fatal(err)
	}
	tbl.Columns[1].Unique = true
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateAlter); err != nil {
		t.Fatalf("Define(alter, unique) = %v", err)
	}
	_, err := db.Create(ctx, tbl, []datastore.Record{{"email": "a@x"}})
	var ue *datastore.UniqueError
	if !errors.As(err, &ue) || !cmp.Equal(ue.Columns, []string{"email"}) {
		t.Errorf("Create(duplicate) = %v, want a UniqueError on [email]", err)
	}
	if err := db.Define(ctx, []*datastore.Table{tbl}, datastore.MigrateAlter); err != nil {
		t.Errorf("Define(alter) again = %v", err)
	}
}
