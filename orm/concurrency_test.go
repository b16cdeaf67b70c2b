package orm_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// TestConcurrentCollectionChanges runs many add, remove and replace calls on
// the same parents at once, then checks that both sides of every
// association agree and that no join row is duplicated.
func TestConcurrentCollectionChanges(t *testing.T) {
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		concurrentCollectionChanges(t, func(t *testing.T) (*orm.ORM, map[string]*model.Model) { return newORMOn(t, db) })
	})
}

func concurrentCollectionChanges(t *testing.T, open func(*testing.T) (*orm.ORM, map[string]*model.Model)) {
	o, m := open(t)
	ctx := t.Context()
	var pets, tags []any
	for i := range 4 {
		pets = append(pets, mustCreate(t, o, m["pet"], map[string]any{"name": fmt.Sprint("pet", i)})["id"])
	}
	for i := range 6 {
		tags = append(tags, mustCreate(t, o, m["tag"], map[string]any{"label": fmt.Sprint("tag", i)})["id"])
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 40 {
				pet := pets[r.IntN(len(pets))]
				tag := tags[r.IntN(len(tags))]
				// Half the changes come from the other side, so both
				// parents' locks are exercised against each other.
				side, parent, child, all := m["pet"], pet, tag, tags
				alias := "tags"
				if r.IntN(2) == 0 {
					side, parent, child, all, alias = m["tag"], tag, pet, pets, "pets"
				}
				var err error
				switch r.IntN(3) {
				case 0:
					_, err = o.AddTo(ctx, side, alias, parent, child)
				case 1:
					_, err = o.RemoveFrom(ctx, side, alias, parent, child)
				default:
					n := r.IntN(len(all) + 1)
					_, err = o.Replace(ctx, side, alias, parent, all[:n])
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("collection change failed under concurrency: %v", err)
	}
	all := &criteria.Criteria{Limit: criteria.Unlimited}
	petRecs, err := o.Find(ctx, m["pet"], all, []orm.Populate{{Attr: "tags"}})
	if err != nil {
		t.Fatal(err)
	}
	tagRecs, err := o.Find(ctx, m["tag"], all, []orm.Populate{{Attr: "pets"}})
	if err != nil {
		t.Fatal(err)
	}
	fromPets := map[[2]any]int{}
	for _, p := range petRecs {
		for _, tg := range p["tags"].([]model.Record) {
			fromPets[[2]any{p["id"], tg["id"]}]++
		}
	}
	fromTags := map[[2]any]int{}
	for _, tg := range tagRecs {
		for _, p := range tg["pets"].([]model.Record) {
			fromTags[[2]any{p["id"], tg["id"]}]++
		}
	}
	for pair, n := range fromPets {
		if n != 1 || fromTags[pair] != 1 {
			t.Errorf("pair %v seen %d times from pets and %d from tags, want once each", pair, n, fromTags[pair])
		}
	}
	if len(fromPets) != len(fromTags) {
		t.Errorf("pets see %d links, tags see %d", len(fromPets), len(fromTags))
	}
}

// TestConcurrentDestroyAndAdd destroys tags (which cascade) while other
// goroutines add them to pets or create pets with them, then checks that no join row names a tag
// that is gone.
func TestConcurrentDestroyAndAdd(t *testing.T) {
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		concurrentDestroyAndAdd(t, func(t *testing.T) (*orm.ORM, map[string]*model.Model) { return newORMOn(t, db) })
	})
}

func concurrentDestroyAndAdd(t *testing.T, open func(*testing.T) (*orm.ORM, map[string]*model.Model)) {
	o, m := open(t)
	ctx := t.Context()
	var pets, tags []any
	for i := range 4 {
		pets = append(pets, mustCreate(t, o, m["pet"], map[string]any{"name": fmt.Sprint("pet", i)})["id"])
	}
	for i := range 60 {
		tags = append(tags, mustCreate(t, o, m["tag"], map[string]any{"label": fmt.Sprint("tag", i)})["id"])
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, tg := range tags {
			if _, _, err := o.Destroy(ctx, m["tag"], tg); err != nil {
				t.Errorf("destroy tag %v: %v", tg, err)
			}
		}
	})
	for _, p := range pets {
		wg.Go(func() {
			for _, tg := range tags {
				// A tag destroyed first is a NotFound; that is expected.
				_, _ = o.AddTo(ctx, m["pet"], "tags", p, tg)
			}
		})
	}
	wg.Go(func() {
		for i, tg := range tags {
			// Creating with a destroyed tag is refused; that is expected.
			_, _, _ = o.Create(ctx, m["pet"], map[string]any{"name": fmt.Sprint("late", i), "tags": []any{tg}})
		}
	})
	wg.Wait()
	join := m["pet"].Attr("tags").Assoc.Join.Model
	n, err := o.Count(ctx, join, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d join rows survive the destruction of every tag", n)
	}
}

// TestConcurrentReplacesOfOneCollection replaces the members of one tag
// from many goroutines at once, some with a missing pet, which PostgreSQL
// makes in groups sharing a transaction: each refusal must be the client's
// error, the changes reported, each relative to the state before it, must
// add up to the final members and, where the answer comes from the
// change's locks (datastore.CollectionReplacer), each answer must hold
// exactly the pets asked for.
func TestConcurrentReplacesOfOneCollection(t *testing.T) {
	onEachAdapter(t, func(t *testing.T, db datastore.Adapter) {
		_, exact := db.(datastore.CollectionReplacer)
		o, m := newORMOn(t, db)
		ctx := t.Context()
		var pets []any
		for i := range 6 {
			pets = append(pets, mustCreate(t, o, m["pet"], map[string]any{"name": fmt.Sprint("pet", i)})["id"])
		}
		tag := mustCreate(t, o, m["tag"], map[string]any{"label": "busy"})["id"]
		var mu sync.Mutex
		net := 0
		var wg sync.WaitGroup
		for g := range 12 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(g), 2))
				for range 15 {
					want := slices.Clone(pets[:r.IntN(len(pets)+1)])
					r.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
					missing := r.IntN(5) == 0
					if missing {
						want = append(want, 99999.0)
					}
					changes, rec, err := o.ReplaceThenFind(ctx, m["tag"], "pets", tag, want, []orm.Populate{{Attr: "pets"}})
					if missing {
						if me, ok := model.AsError(err); !ok || me.Kind != model.Invalid {
							t.Errorf("replace with a missing pet = %v; want an Invalid error", err)
						}
						continue
					}
					if err != nil {
						t.Errorf("replace = %v", err)
						continue
					}
					var got []any
					for _, p := range rec["pets"].([]model.Record) {
						got = append(got, p["id"])
					}
					if exact && !sameIDs(got, want) {
						t.Errorf("answer has pets %v, want %v", got, want)
					}
					for _, l := range changes {
						if l.Model == m["tag"] {
							mu.Lock()
							net += len(l.Added) - len(l.Removed)
							mu.Unlock()
						}
					}
				}
			})
		}
		wg.Wait()
		final, err := o.FindByPK(ctx, m["tag"], tag, []orm.Populate{{Attr: "pets"}})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(final["pets"].([]model.Record)); n != net {
			t.Errorf("the tag has %d pets, the changes reported add up to %d", n, net)
		}
	})
}

// sameIDs reports whether a and b hold the same keys, in any order.
func sameIDs(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for _, id := range a {
		if !slices.Contains(b, id) {
			return false
		}
	}
	return true
}
