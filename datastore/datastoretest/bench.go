package datastoretest

import (
	"fmt"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// benchTable defines a fresh table of the shape a typical model has, with
// n rows.
func benchTable(b *testing.B, a datastore.Adapter, name string, n int) *datastore.Table {
	b.Helper()
	tbl := &datastore.Table{Name: name, PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "email", Kind: datastore.String, Unique: true},
		{Name: "age", Kind: datastore.Integer},
		{Name: "admin", Kind: datastore.Boolean},
		{Name: "meta", Kind: datastore.JSON},
		{Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer},
	}}
	if err := a.Define(b.Context(), []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		b.Fatalf("Define = %v", err)
	}
	recs := make([]datastore.Record, n)
	for i := range recs {
		recs[i] = benchRecord(i)
	}
	if n > 0 {
		if _, err := a.Create(b.Context(), tbl, recs); err != nil {
			b.Fatalf("Create = %v", err)
		}
	}
	return tbl
}

func benchRecord(i int) datastore.Record {
	return datastore.Record{
		"name": fmt.Sprintf("user %d", i), "email": fmt.Sprintf("u%d@example.com", i),
		"age": float64(20 + i%50), "admin": i%7 == 0, "meta": map[string]any{"i": float64(i)},
		"createdAt": 1712345678901.0, "updatedAt": 1712345678901.0,
	}
}

// BenchFindByPK measures Find of one row by primary key.
func BenchFindByPK(b *testing.B, a datastore.Adapter) {
	const rows = 1000
	tbl := benchTable(b, a, "bench_find_pk", rows)
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		q := &datastore.Query{Table: tbl, Where: eq("id", float64(i%rows+1)), Limit: criteria.Unlimited}
		recs, err := a.Find(ctx, q)
		if err != nil || len(recs) != 1 {
			b.Fatalf("Find = %d records, %v", len(recs), err)
		}
	}
}

// BenchFindList30 measures a sorted page of 30 rows with a filter.
func BenchFindList30(b *testing.B, a datastore.Adapter) {
	tbl := benchTable(b, a, "bench_find_list", 1000)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		q := &datastore.Query{Table: tbl, Where: op("age", criteria.Gte, 25.0),
			Sort: []criteria.Sort{{Attr: "name"}}, Limit: 30, Skip: 60}
		recs, err := a.Find(ctx, q)
		if err != nil || len(recs) != 30 {
			b.Fatalf("Find = %d records, %v", len(recs), err)
		}
	}
}

// BenchCreate measures Create of one row.
func BenchCreate(b *testing.B, a datastore.Adapter) {
	tbl := benchTable(b, a, "bench_create", 0)
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := a.Create(ctx, tbl, []datastore.Record{benchRecord(i)}); err != nil {
			b.Fatalf("Create = %v", err)
		}
	}
}
