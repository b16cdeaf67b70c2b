package sqlgen

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/datastore"
)

// TestGuardedCacheSameStmt: the guarded insertions a dialect's cache
// answers are the statements compiled afresh (text, arguments, columns,
// nests, errors) for each dialect and function, shapes of several column
// sets, guards and locks, with the values changing between rounds; a
// table changed in place is compiled anew.
func TestGuardedCacheSameStmt(t *testing.T) {
	user, shop, pet, _ := cacheTestTables()
	type shape struct {
		name   string
		rec    func(round int) datastore.Record
		guards func(round int) []datastore.Guard
		lock   string
	}
	shapes := []shape{
		{"owner returned", func(r int) datastore.Record {
			return datastore.Record{"name": fmt.Sprint("Rex ", r), "owner": int64(r + 1)}
		}, func(r int) []datastore.Guard {
			return []datastore.Guard{{Table: user, Key: float64(r + 1), Column: "owner"}}
		}, ""},
		{"owner and shop returned, locked", func(r int) datastore.Record {
			return datastore.Record{"name": "a", "owner": int64(r), "shop": "s", "meta": map[string]any{"r": r}, "age": 2.5}
		}, func(r int) []datastore.Guard {
			return []datastore.Guard{{Table: user, Key: int64(r), Column: "owner"}, {Table: shop, Key: "s", Column: "shop"}}
		}, "FOR KEY SHARE"},
		{"owner checked only", func(r int) datastore.Record {
			return datastore.Record{"owner": int64(r), "age": float64(r)}
		}, func(r int) []datastore.Guard {
			return []datastore.Guard{{Table: user, Key: int64(r)}}
		}, ""},
		{"shop returned, owner checked", func(r int) datastore.Record {
			return datastore.Record{"shop": "s", "owner": int64(r), "id": int64(100 + r)}
		}, func(r int) []datastore.Guard {
			return []datastore.Guard{{Table: user, Key: int64(r)}, {Table: shop, Key: "s", Column: "shop"}}
		}, "FOR SHARE"},
		{"no values", func(int) datastore.Record { return datastore.Record{} }, func(r int) []datastore.Guard {
			return []datastore.Guard{{Table: user, Key: int64(r)}}
		}, ""},
		{"bad key", func(int) datastore.Record { return datastore.Record{"name": "x"} }, func(r int) []datastore.Guard {
			if r == 2 {
				return []datastore.Guard{{Table: user, Key: "not a number", Column: "owner"}}
			}
			return []datastore.Guard{{Table: user, Key: int64(r), Column: "owner"}}
		}, ""},
		{"guard column twice", func(int) datastore.Record { return datastore.Record{"owner": int64(1)} }, func(r int) []datastore.Guard {
			return []datastore.Guard{{Table: user, Key: int64(r), Column: "owner"}, {Table: user, Key: int64(r), Column: "owner"}}
		}, ""},
	}
	funcs := []struct {
		name string
		f    func(*Dialect, *datastore.Table, datastore.Record, []datastore.Guard, string) (Stmt, error)
	}{{"InsertGuarded", InsertGuarded}, {"InsertGuardedWith", InsertGuardedWith}}
	check := func(d *Dialect, label string, round int) {
		t.Helper()
		plain := *d
		plain.guarded, plain.texts, plain.lists = nil, nil, nil
		for _, fn := range funcs {
			for _, s := range shapes {
				want, werr := fn.f(&plain, pet, s.rec(round), s.guards(round), s.lock)
				got, gerr := fn.f(d, pet, s.rec(round), s.guards(round), s.lock)
				where := fmt.Sprintf("%s %s(%s), %s, round %d", d.Name, fn.name, s.name, label, round)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("%s: error %v, want %v", where, gerr, werr)
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: statement differs (-fresh +cached):\n%s", where, diff)
				}
			}
		}
	}
	for _, d := range []*Dialect{SQLite(), Postgres(), MySQL()} {
		for round := range 3 { // the later rounds from the cache
			check(d, "tables as made", round)
		}
		// A guard's table changed alone, then the insertion's.
		user.Columns[1].Name = "renamed"
		shop.PrimaryKey = "city"
		for round := range 2 {
			check(d, "guard tables changed", round)
		}
		pet.Columns = append(pet.Columns, datastore.Column{Name: "extra", Kind: datastore.JSON})
		for round := range 2 {
			check(d, "tables changed", round)
		}
		user.Columns[1].Name = `na"me`
		pet.Columns = pet.Columns[: len(pet.Columns)-1 : len(pet.Columns)-1]
		shop.PrimaryKey = "code"
		check(d, "tables back", 0)
	}
}

// TestGuardedCacheBound: a guardedCache keeps at most maxGuarded shapes,
// however many column sets a client sends.
func TestGuardedCacheBound(t *testing.T) {
	d := SQLite()
	user := &datastore.Table{Name: "user", PrimaryKey: "id", Columns: []datastore.Column{{Name: "id", Kind: datastore.Integer, PrimaryKey: true}}}
	var cols []datastore.Column
	for i := range 12 {
		cols = append(cols, datastore.Column{Name: fmt.Sprint("c", i), Kind: datastore.Integer})
	}
	pet := &datastore.Table{Name: "pet", PrimaryKey: "c0", Columns: cols}
	for set := 1; set < 1<<12; set++ { // 4,095 column sets
		rec := datastore.Record{}
		for i := range 12 {
			if set&(1<<i) != 0 {
				rec[cols[i].Name] = int64(i)
			}
		}
		if _, err := InsertGuarded(d, pet, rec, []datastore.Guard{{Table: user, Key: int64(1)}}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.guarded.m); n != maxGuarded {
		t.Errorf("after 4,095 shapes the cache holds %d, want %d", n, maxGuarded)
	}
}

// BenchmarkInsertGuarded compiles POST /pet's guarded insert (a pet with
// its owner's row returned), from the cache and afresh.
//
//	go test -run '^$' -bench InsertGuarded -benchmem ./internal/sqlgen
func BenchmarkInsertGuarded(b *testing.B) {
	user := &datastore.Table{Name: "user", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true}, {Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer}, {Name: "name", Kind: datastore.String},
		{Name: "email", Kind: datastore.String},
	}}
	pet := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true}, {Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer}, {Name: "name", Kind: datastore.String},
		{Name: "species", Kind: datastore.String}, {Name: "owner", Kind: datastore.Integer},
	}}
	rec := datastore.Record{"name": "Rex", "owner": int64(7), "createdAt": int64(1), "updatedAt": int64(1)}
	guards := []datastore.Guard{{Table: user, Key: int64(7), Column: "owner"}}
	for _, d := range []*Dialect{SQLite(), Postgres()} {
		f := InsertGuarded
		if d.Numbered {
			f = InsertGuardedWith
		}
		uncached := *d
		uncached.guarded = nil
		for name, d := range map[string]*Dialect{"cached": d, "fresh": &uncached} {
			b.Run(d.Name+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := f(d, pet, rec, guards, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
