package sqlgen

import (
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// TestListCacheSameText: reads compiled with the result lists cached are
// the texts compiled without, for each dialect, joined or not; a table
// whose columns change in place is written anew.
func TestListCacheSameText(t *testing.T) {
	owner, _, pet, link := cacheTestTables()
	compile := func(d *Dialect) []string {
		q := &datastore.Query{Table: pet, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: 7.0}, Limit: 2}
		var out []string
		for _, f := range []func() (Stmt, error){
			func() (Stmt, error) { return Select(d, q) },
			func() (Stmt, error) {
				return SelectJoined(d, q, []datastore.Join{{Column: "owner", Table: owner}})
			},
			func() (Stmt, error) {
				return SelectThrough(d, &datastore.Query{Table: owner, Limit: 30},
					&datastore.Through{Table: link, ParentColumn: "pet_tags", ChildColumn: "tag_pets", Parents: []any{1.0}})
			},
		} {
			st, err := f()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, st.SQL)
			for _, c := range st.Columns {
				out = append(out, c.Name)
			}
		}
		return out
	}
	for _, d := range []*Dialect{SQLite(), Postgres(), MySQL()} {
		plain := *d
		plain.lists = nil
		want := compile(&plain)
		for round := range 2 { // the second from the cache
			got := compile(d)
			if len(got) != len(want) {
				t.Fatalf("%s: %q, want %q", d.Name, got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s, round %d, statement %d:\n got %s\nwant %s", d.Name, round, i, got[i], want[i])
				}
			}
		}
		owner.Columns[1].Name = "renamed"
		pet.Columns = append(pet.Columns, datastore.Column{Name: "extra", Kind: datastore.JSON})
		plain.texts = nil
		want, got := compile(&plain), compile(d)
		if len(got) != len(want) {
			t.Fatalf("%s, changed tables: %q, want %q", d.Name, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s, changed tables, statement %d:\n got %s\nwant %s", d.Name, i, got[i], want[i])
			}
		}
		owner.Columns[1].Name = `na"me`
		pet.Columns = pet.Columns[:3]
	}
}
