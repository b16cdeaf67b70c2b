package sqlgen

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// TestReadCacheSameStmt: the reads a dialect's cache answers are the
// statements compiled afresh (text, arguments, columns, nests, maximum
// rows, errors) for each dialect, over shapes with and without joins,
// equalities, sorts and pages, with the values changing between rounds
// (some the column cannot hold, some not encodable); a table changed in
// place is compiled anew.
func TestReadCacheSameStmt(t *testing.T) {
	user, shop, pet, link := cacheTestTables()
	through := func(parents ...any) *datastore.Through {
		return &datastore.Through{Table: link, ParentColumn: "tag_pets", ChildColumn: "pet_tags", Parents: parents}
	}
	eq := func(attr string, v any) criteria.Expr { return &criteria.Cmp{Attr: attr, Op: criteria.Eq, Value: v} }
	byID := []criteria.Sort{{Attr: "id"}}
	type shape struct {
		name    string
		query   func(round int) *datastore.Query
		joins   []datastore.Join
		through func(round int) *datastore.Through // SelectThrough's
	}
	shapes := []shape{
		{"by key", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("id", float64(r+1)), Sort: byID, Limit: 2}
		}, nil, nil},
		{"by key, owner joined", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("id", int64(r+1)), Sort: byID, Limit: 2}
		}, []datastore.Join{{Column: "owner", Table: user}}, nil},
		{"by key, owner and shop joined", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("id", float64(r+40)), Limit: 1}
		}, []datastore.Join{{Column: "owner", Table: user}, {Column: "shop", Table: shop}}, nil},
		{"user by key, best friend joined", func(r int) *datastore.Query {
			return &datastore.Query{Table: user, Where: eq("id", int64(r)), Sort: byID, Limit: 2}
		}, []datastore.Join{{Column: "best", Table: user}}, nil},
		{"fractional and out-of-range keys", func(r int) *datastore.Query {
			v := []any{1.5, 2.0, math.Inf(1), 1e300}[r%4]
			return &datastore.Query{Table: pet, Where: eq("id", v), Sort: byID, Limit: 2}
		}, []datastore.Join{{Column: "owner", Table: user}}, nil},
		{"unencodable key", func(r int) *datastore.Query {
			v := []any{int64(3), "three", int64(4), map[string]any{}}[r%4]
			return &datastore.Query{Table: pet, Where: eq("id", v), Limit: 2}
		}, nil, nil},
		{"equality on a string column, sorted, skipped", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("name", fmt.Sprint("Rex", r)),
				Sort: []criteria.Sort{{Attr: "age", Desc: true}, {Attr: "name"}}, Limit: int64(10 + r%2), Skip: int64(r)}
		}, nil, nil},
		{"no where, page", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Sort: []criteria.Sort{{Attr: "name"}}, Limit: 30, Skip: int64(r * 30)}
		}, []datastore.Join{{Column: "owner", Table: user}}, nil},
		{"no where, unlimited, skipped", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Limit: criteria.Unlimited, Skip: int64(r)}
		}, nil, nil},
		{"null value", func(int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("owner", nil), Limit: 2}
		}, nil, nil},
		{"no such column", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("nope", int64(r)), Limit: 2}
		}, nil, nil},
		{"no such sort column", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("id", int64(r)), Sort: []criteria.Sort{{Attr: "nope"}}, Limit: 2}
		}, []datastore.Join{{Column: "owner", Table: user}}, nil},
		{"join on no such column", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("id", int64(r)), Limit: 2}
		}, []datastore.Join{{Column: "nope", Table: user}}, nil},
		{"column joined twice", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("id", int64(r)), Limit: 2}
		}, []datastore.Join{{Column: "owner", Table: user}, {Column: "owner", Table: user}}, nil},
		{"negative limit", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("id", int64(r)), Limit: -1}
		}, nil, nil},
		{"collection of one parent", func(int) *datastore.Query {
			return &datastore.Query{Table: pet, Limit: 30}
		}, nil, func(r int) *datastore.Through { return through(float64(r + 1)) }},
		{"collection of one parent, filtered, sorted, skipped", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Where: eq("name", fmt.Sprint("Rex", r)), Sort: []criteria.Sort{{Attr: "age", Desc: true}},
				Limit: criteria.Unlimited, Skip: int64(r % 2)}
		}, nil, func(r int) *datastore.Through { return through(int64(r)) }},
		{"collection of odd parents", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Limit: 30}
		}, nil, func(r int) *datastore.Through {
			return through([]any{1.5, int64(2), nil, "x", math.Inf(-1)}[r%5])
		}},
		{"collection of two parents, partitioned", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Limit: 30, PartitionBy: datastore.ParentKey}
		}, nil, func(r int) *datastore.Through { return through(int64(r), int64(r+1)) }},
		{"collection through a missing column", func(r int) *datastore.Query {
			return &datastore.Query{Table: pet, Limit: 30}
		}, nil, func(r int) *datastore.Through {
			j := through(int64(r))
			j.ParentColumn = "nope"
			return j
		}},
	}
	check := func(d *Dialect, label string, round int) {
		t.Helper()
		plain := *d
		plain.reads, plain.texts, plain.lists = nil, nil, nil
		for _, s := range shapes {
			if s.through != nil {
				want, werr := SelectThrough(&plain, s.query(round), s.through(round))
				got, gerr := SelectThrough(d, s.query(round), s.through(round))
				where := fmt.Sprintf("%s SelectThrough(%s), %s, round %d", d.Name, s.name, label, round)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("%s: error %v, want %v", where, gerr, werr)
				} else if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: statement differs (-fresh +cached):\n%s", where, diff)
				}
				continue
			}
			want, werr := SelectJoined(&plain, s.query(round), s.joins)
			got, gerr := SelectJoined(d, s.query(round), s.joins)
			where := fmt.Sprintf("%s SelectJoined(%s), %s, round %d", d.Name, s.name, label, round)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s: error %v, want %v", where, gerr, werr)
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: statement differs (-fresh +cached):\n%s", where, diff)
			}
			if s.joins != nil {
				continue
			}
			got, gerr = Select(d, s.query(round))
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s: Select error %v, want %v", where, gerr, werr)
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: Select statement differs (-fresh +cached):\n%s", where, diff)
			}
		}
	}
	for _, d := range []*Dialect{SQLite(), Postgres(), MySQL()} {
		for round := range 5 { // the later rounds from the cache
			check(d, "tables as made", round)
		}
		if d.reads.n == 0 {
			t.Errorf("%s: no read cached", d.Name)
		}
		// A joined table changed alone, then the query's.
		user.Columns[1].Name = "renamed"
		link.Columns[1].Name = "renamed"
		shop.PrimaryKey = "city"
		for round := range 2 {
			check(d, "joined tables changed", round)
		}
		pet.Columns = append(pet.Columns, datastore.Column{Name: "extra", Kind: datastore.Integer})
		for round := range 2 {
			check(d, "tables changed", round)
		}
		pet.Columns[0].Kind = datastore.String // the key's encoding changes with it
		check(d, "key kind changed", 1)
		pet.Columns[0].Kind = datastore.Integer
		user.Columns[1].Name = `na"me`
		link.Columns[1].Name = "pet_tags"
		link.Columns[2].Kind = datastore.String // the parent key's encoding changes with it
		check(d, "parent kind changed", 1)
		link.Columns[2].Kind = datastore.Integer
		pet.Columns = pet.Columns[: len(pet.Columns)-1 : len(pet.Columns)-1]
		shop.PrimaryKey = "code"
		check(d, "tables back", 0)
	}
}

// TestReadCacheBound: a readCache keeps at most maxTableReads shapes of a
// table and maxReads in all, however many limits and sorts clients send.
func TestReadCacheBound(t *testing.T) {
	pet := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "name", Kind: datastore.String},
	}}
	d := Postgres() // LiteralLimit: one shape per limit
	for n := range maxTableReads + 10 {
		q := &datastore.Query{Table: pet, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: int64(1)}, Limit: int64(n)}
		if _, err := Select(d, q); err != nil {
			t.Fatalf("Select(limit %d): %v", n, err)
		}
	}
	if got := len(d.reads.m[pet]); got != maxTableReads {
		t.Errorf("readCache holds %d shapes of a table, want %d", got, maxTableReads)
	}
	for i := range maxReads + 10 {
		other := &datastore.Table{Name: "t", PrimaryKey: "id", Columns: pet.Columns}
		if _, err := Select(d, &datastore.Query{Table: other, Limit: int64(i)}); err != nil {
			t.Fatalf("Select(table %d): %v", i, err)
		}
	}
	if d.reads.n != maxReads {
		t.Errorf("readCache holds %d shapes, want %d", d.reads.n, maxReads)
	}
}

// TestReadCacheConcurrent: reads compiled at once by several goroutines,
// of shapes the cache is filling, are the fresh compilations (run with
// -race).
func TestReadCacheConcurrent(t *testing.T) {
	pet := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "name", Kind: datastore.String},
	}}
	d := SQLite()
	plain := *d
	plain.reads, plain.texts, plain.lists = nil, nil, nil
	query := func(i int) *datastore.Query {
		return &datastore.Query{Table: pet, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: int64(i)},
			Sort: []criteria.Sort{{Attr: "name", Desc: i%3 == 0}}, Limit: int64(1 + i%2), Skip: int64(i % 4)}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				want, werr := Select(&plain, query(g+i))
				got, gerr := Select(d, query(g+i))
				if werr != nil || gerr != nil {
					t.Errorf("Select(%d): errors %v, %v", g+i, gerr, werr)
					return
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Select(%d) differs (-fresh +cached):\n%s", g+i, diff)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkSelectByKey compiles the read of one pet by key with its owner
// joined, as GET /pet/:id does, from the cache and afresh.
func BenchmarkSelectByKey(b *testing.B) {
	user := &datastore.Table{Name: "user", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "name", Kind: datastore.String},
		{Name: "email", Kind: datastore.String},
		{Name: "age", Kind: datastore.Number},
		{Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer},
	}}
	pet := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "name", Kind: datastore.String},
		{Name: "species", Kind: datastore.String},
		{Name: "owner", Kind: datastore.Integer},
		{Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer},
	}}
	joins := []datastore.Join{{Column: "owner", Table: user}}
	benchReadCache(b, func(d *Dialect) error {
		q := &datastore.Query{Table: pet, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: float64(42)},
			Sort: []criteria.Sort{{Attr: "id"}}, Limit: 2}
		_, err := SelectJoined(d, q, joins)
		return err
	})
}

// benchReadCache runs compile on SQLite and PostgreSQL, with the read
// cache and without.
func benchReadCache(b *testing.B, compile func(d *Dialect) error) {
	for _, mk := range []func() *Dialect{SQLite, Postgres} {
		for _, cached := range []bool{true, false} {
			d := mk()
			if !cached {
				d.reads = nil
			}
			b.Run(fmt.Sprintf("%s/cached=%v", d.Name, cached), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := compile(d); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSelectCollection compiles the read of one pet's tags through
// their join table, as GET /pet/:id populates them, from the cache and
// afresh.
func BenchmarkSelectCollection(b *testing.B) {
	tag := &datastore.Table{Name: "tag", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "label", Kind: datastore.String},
		{Name: "createdAt", Kind: datastore.Integer},
		{Name: "updatedAt", Kind: datastore.Integer},
	}}
	link := &datastore.Table{Name: "pet_tags__tag_pets", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "pet_tags", Kind: datastore.Integer},
		{Name: "tag_pets", Kind: datastore.Integer},
	}}
	benchReadCache(b, func(d *Dialect) error {
		j := &datastore.Through{Table: link, ParentColumn: "tag_pets", ChildColumn: "pet_tags", Parents: []any{float64(42)}}
		_, err := SelectThrough(d, &datastore.Query{Table: tag, Limit: 30}, j)
		return err
	})
}
