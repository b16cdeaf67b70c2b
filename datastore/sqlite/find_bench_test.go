package sqlite_test

import (
	"fmt"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// BenchmarkFind reads what bench/floor.sh's GET /pet?limit=30 reads on
// SQLite: a page of 30 pets (page), then their 30 owners by key (owners),
// and one pet by key (one), and the page with its owners joined
// (page-joined, what it reads when the owners are distinct), to see what
// the read path costs without the HTTP layer.
func BenchmarkFind(b *testing.B) {
	db := open(b, datastore.Config{URL: ":memory:"})
	ctx := b.Context()
	users := &datastore.Table{Name: "user", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true},
		{Name: "age", Kind: datastore.Number},
		{Name: "email", Kind: datastore.String},
		{Name: "name", Kind: datastore.String},
		{Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer},
	}}
	pets := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true},
		{Name: "name", Kind: datastore.String},
		{Name: "owner", Kind: datastore.Integer},
		{Name: "species", Kind: datastore.String},
		{Name: "vaccinated", Kind: datastore.Boolean},
		{Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer},
	}}
	if err := db.Define(ctx, []*datastore.Table{users, pets}, datastore.MigrateDrop); err != nil {
		b.Fatal(err)
	}
	ids := make([]any, 0, 30)
	for i := int64(1); i <= 100; i++ {
		if _, err := db.Create(ctx, users, []datastore.Record{{"name": fmt.Sprintf("User %d", i), "email": fmt.Sprintf("user%d@example.com", i), "createdAt": 1795730475690 + i, "updatedAt": 1795730475690 + i}}); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Create(ctx, pets, []datastore.Record{{"name": fmt.Sprintf("Pet %d", i), "owner": i, "species": "cat", "vaccinated": false, "createdAt": 1795730476506 + i, "updatedAt": 1795730476506 + i}}); err != nil {
			b.Fatal(err)
		}
		if i <= 30 {
			ids = append(ids, i)
		}
	}
	for _, q := range []struct {
		name string
		q    *datastore.Query
		n    int
	}{
		{"page", &datastore.Query{Table: pets, Limit: 30, Sort: []criteria.Sort{{Attr: "id"}}}, 30},
		{"owners", &datastore.Query{Table: users, Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "id", Op: criteria.In, Value: ids}}, 30},
		{"one", &datastore.Query{Table: pets, Limit: criteria.Unlimited, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: int64(42)}}, 1},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				recs, err := db.Find(ctx, q.q)
				if err != nil || len(recs) != q.n {
					b.Fatalf("Find = %d records, %v; want %d", len(recs), err, q.n)
				}
			}
		})
	}
	b.Run("page-joined", func(b *testing.B) {
		b.ReportAllocs()
		q := &datastore.Query{Table: pets, Limit: 30, Sort: []criteria.Sort{{Attr: "id"}}}
		joins := []datastore.Join{{Column: "owner", Table: users}}
		for b.Loop() {
			recs, err := db.FindJoined(ctx, q, joins)
			if err != nil || len(recs) != 30 {
				b.Fatalf("FindJoined = %d records, %v; want 30", len(recs), err)
			}
		}
	})
}
