package orm_test

import (
	"fmt"
	"testing"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
)

// TestMaxIDsWrites: a create and a replace naming model.MaxIDs existing
// records, many-to-many and one-to-many, are statements every engine takes
// (SQLite refuses more than 32,766 parameters). Skipped with -short.
func TestMaxIDsWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 10,000 records")
	}
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		o, m := newORMOn(t, db)
		ctx := t.Context()
		ids := make([]any, model.MaxIDs)
		for i := range ids {
			rec, _, err := o.Create(ctx, m["pet"], map[string]any{"name": fmt.Sprint("p", i)})
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = rec["id"]
		}
		if _, _, err := o.Create(ctx, m["tag"], map[string]any{"label": "all", "pets": ids}); err != nil {
			t.Errorf("create a tag with %d pets: %v", len(ids), err)
		}
		owner, _, err := o.Create(ctx, m["owner"], map[string]any{"name": "a", "pets": ids})
		if err != nil {
			t.Fatalf("create an owner with %d pets: %v", len(ids), err)
		}
		if _, err := o.Replace(ctx, m["owner"], "pets", owner["id"], ids[:len(ids)/2]); err != nil {
			t.Errorf("replace %d pets: %v", len(ids)/2, err)
		}
		tag, _, err := o.Create(ctx, m["tag"], map[string]any{"label": "none"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Replace(ctx, m["tag"], "pets", tag["id"], ids); err != nil {
			t.Errorf("replace a tag's pets with %d: %v", len(ids), err)
		}
	})
}
