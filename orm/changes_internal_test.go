package orm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/model"
)

// TestChangeSetSearchSameAsIndex: a changeSet that finds its links by
// looking at each (below indexedLinks) merges them as one indexed from the
// start, whatever the order and number of singular and plural changes,
// across the point where it starts its index.
func TestChangeSetSearchSameAsIndex(t *testing.T) {
	pet := &model.Model{Identity: "pet"}
	user := &model.Model{Identity: "user"}
	models := []*model.Model{pet, user}
	attrs := []string{"owner", "pets", "tags"}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		var searched, indexed changeSet
		indexed.makeIndex(0)
		n := 1 + r.IntN(3*indexedLinks)
		for range n {
			m, attr := models[r.IntN(2)], attrs[r.IntN(3)]
			var id any = float64(r.IntN(6))
			if r.IntN(4) == 0 {
				id = fmt.Sprint(r.IntN(6)) // string keys are other records
			}
			switch r.IntN(4) {
			case 0:
				key := any(float64(r.IntN(3)))
				searched.singular(m, id, attr, key)
				indexed.singular(m, id, attr, key)
			case 1:
				searched.grow(r.IntN(indexedLinks))
			default:
				ids := []any{float64(r.IntN(5)), float64(r.IntN(5))}
				added := r.IntN(2) == 0
				searched.plural(m, id, attr, ids, added)
				indexed.plural(m, id, attr, ids, added)
			}
		}
		if searched.index != nil {
			for i, l := range searched.links {
				if j, ok := searched.index[linkKey{l.Model, l.ID, l.Attr}]; !ok || j != i {
					t.Fatalf("seed %d: link %d (%s#%v.%s) indexed at %d, %v", seed, i, l.Model.Identity, l.ID, l.Attr, j, ok)
				}
			}
		}
		if diff := cmp.Diff(indexed.links, searched.links, cmp.Comparer(func(a, b *model.Model) bool { return a == b })); diff != "" {
			t.Errorf("seed %d, %d changes: links differ (-indexed +searched):\n%s", seed, n, diff)
		}
	}
}
