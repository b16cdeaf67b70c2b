package postgres

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// TestReplaceStatementCached checks that a statement built from the cache
// is the one sqlgen compiles, with each change's own arguments, and that
// changes of another shape get their own.
func TestReplaceStatementCached(t *testing.T) {
	db := &DB{d: sqlgen.Postgres()}
	key := datastore.Column{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true}
	parent := &datastore.Table{Name: "tag", PrimaryKey: "id", Columns: []datastore.Column{key}}
	child := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{key, {Name: "owner", Kind: datastore.Integer}, {Name: "name", Kind: datastore.String}}}
	join := &datastore.Table{Name: "pet_tags", PrimaryKey: "id", Columns: []datastore.Column{key, {Name: "tag", Kind: datastore.Integer}, {Name: "pet", Kind: datastore.Integer}}}
	changes := []*datastore.Replacement{
		{Parent: parent, Key: 1.0, Child: child, Want: []any{1.0, 2.0}, Through: &datastore.Through{Table: join, ParentColumn: "tag", ChildColumn: "pet"}},
		{Parent: parent, Key: 2.0, Child: child, Want: []any{3.0}, Through: &datastore.Through{Table: join, ParentColumn: "tag", ChildColumn: "pet"}},
		{Parent: parent, Key: 2.0, Child: child, Want: []any{3.0}, ChildColumns: []string{"id", "name"}, Through: &datastore.Through{Table: join, ParentColumn: "tag", ChildColumn: "pet"}},
		{Parent: parent, Key: 1.0, Child: child, Want: []any{4.0, 5.0, 6.0}, Via: "owner"},
		{Parent: parent, Key: 3.0, Child: child, Want: nil, Via: "owner", Required: true},
	}
	for round := range 2 {
		for i, r := range changes {
			got, err := db.replaceStatement(r)
			if err != nil {
				t.Fatalf("round %d, change %d: replaceStatement = %v", round, i, err)
			}
			want, err := sqlgen.ReplaceCollection(db.d, r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round %d, change %d: statement differs (-sqlgen +cached):\n%s", round, i, diff)
			}
		}
	}
	if n := db.replaces.n.Load(); n != 4 {
		t.Errorf("statements built = %d, want 4 (one per shape)", n)
	}
}
