package mysql_test

import (
	"fmt"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/datastoretest"
	"github.com/skiffhq/skiff/datastore/mysql"
	"github.com/skiffhq/skiff/internal/testenv"
)

func open(t testing.TB) *mysql.DB {
	t.Helper()
	db, err := mysql.Open(t.Context(), datastore.Config{URL: testenv.MySQLDatabase(t)})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAdapter(t *testing.T) {
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter { return open(t) })
}

func TestAdapterSharedDatabase(t *testing.T) {
	shared := open(t)
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter { return shared })
}

func BenchmarkFindByPK(b *testing.B)   { datastoretest.BenchFindByPK(b, open(b)) }
func BenchmarkFindList30(b *testing.B) { datastoretest.BenchFindList30(b, open(b)) }
func BenchmarkCreate(b *testing.B)     { datastoretest.BenchCreate(b, open(b)) }

// BenchmarkFindPopulate reads what populating 30 owners with 10 pets each
// reads: 300 rows of 7 columns by a foreign key (bench/compare.sh's
// GET /user?limit=30).
func BenchmarkFindPopulate(b *testing.B) {
	db := open(b)
	ctx := b.Context()
	pets := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "owner", Kind: datastore.Integer, Indexed: true},
		{Name: "species", Kind: datastore.String},
		{Name: "vaccinated", Kind: datastore.Boolean},
		{Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer},
	}}
	if err := db.Define(ctx, []*datastore.Table{pets}, datastore.MigrateDrop); err != nil {
		b.Fatal(err)
	}
	recs := make([]datastore.Record, 1000)
	for i := range recs {
		recs[i] = datastore.Record{"name": fmt.Sprintf("Pet %d", i+1), "owner": float64(i/10 + 1), "species": "cat",
			"createdAt": 1795709552779.0, "updatedAt": 1795709552779.0}
	}
	if _, err := db.Create(ctx, pets, recs); err != nil {
		b.Fatal(err)
	}
	owners := make([]any, 30)
	for i := range owners {
		owners[i] = float64(i + 1)
	}
	q := &datastore.Query{Table: pets, Where: &criteria.Cmp{Attr: "owner", Op: criteria.In, Value: owners},
		Sort: []criteria.Sort{{Attr: "owner"}, {Attr: "id"}}, Limit: 901}
	b.ReportAllocs()
	for b.Loop() {
		got, err := db.Find(ctx, q)
		if err != nil || len(got) != 300 {
			b.Fatalf("Find = %d records, %v", len(got), err)
		}
	}
}
