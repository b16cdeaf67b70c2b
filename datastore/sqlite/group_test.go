package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// groupTable defines a table with a unique name column.
func groupTable(t *testing.T, db *DB) *datastore.Table {
	t.Helper()
	tbl := &datastore.Table{
		Name:       "item",
		PrimaryKey: "id",
		Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
			{Name: "name", Kind: datastore.String, Unique: true},
		},
	}
	if err := db.Define(context.Background(), []*datastore.Table{tbl}, datastore.MigrateDrop); err != nil {
		t.Fatal(err)
	}
	return tbl
}

// names returns the item names stored, sorted.
func names(t *testing.T, db *DB, tbl *datastore.Table) []string {
	t.Helper()
	recs, err := db.Find(context.Background(), &datastore.Query{Table: tbl, Limit: criteria.Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r["name"].(string))
	}
	slices.Sort(out)
	return out
}

// holdLead starts a transaction that keeps the lead until release is
// called; queued waits until n more calls queue behind it, so that those
// run together: in the leader's own transaction after its function, or,
// when that function fails (fail), in a transaction of their own.
func holdLead(t *testing.T, db *DB, tbl *datastore.Table, fail bool) (release func(), queued func(n int)) {
	t.Helper()
	ctx := context.Background()
	hold, started := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
			close(started)
			<-hold
			if _, err := tx.Create(ctx, tbl, []datastore.Record{{"name": "leader"}}); err != nil {
				return err
			}
			if fail {
				return errLeader
			}
			return nil
		})
	}()
	<-started
	release = func() {
		close(hold)
		if err := <-done; (err != nil) != fail || fail && err != errLeader {
			t.Errorf("leader: %v", err)
		}
	}
	return release, func(n int) { waitQueued(t, db, n) }
}

// waitQueued waits until at least n calls wait in db's queue.
func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		db.group.mu.Lock()
		k := len(db.group.queue)
		db.group.mu.Unlock()
		if k >= n {
			return
		}
	}
	t.Fatalf("fewer than %d calls queued", n)
}

var errLeader = errors.New("leader failed on purpose")

// TestGroupKeepsEachOutcome: transactions that queue behind a running one
// share a commit, and each keeps its own outcome: a function that fails or
// panics is undone alone, in first place of its transaction or later, a
// duplicate name fails as a unique violation, and the others commit. They
// run in the leader's transaction after it, or, when the leader fails, in
// one of their own whose first function fails.
func TestGroupKeepsEachOutcome(t *testing.T) {
	for _, leaderFails := range []bool{false, true} {
		t.Run(fmt.Sprint("leaderFails=", leaderFails), func(t *testing.T) {
			testGroupKeepsEachOutcome(t, leaderFails)
		})
	}
}

func testGroupKeepsEachOutcome(t *testing.T, leaderFails bool) {
	db := openFile(t)
	tbl := groupTable(t, db)
	ctx := context.Background()
	release, queued := holdLead(t, db, tbl, leaderFails)

	type call struct {
		name    string
		fail    bool // return an error after writing
		panics  bool // panic after writing
		want    error
		wantDup bool
	}
	errFailed := errors.New("failed on purpose")
	calls := []call{
		{name: "first fails", fail: true, want: errFailed},
		{name: "a"},
		{name: "b", fail: true, want: errFailed},
		{name: "c"},
		{name: "d", panics: true},
		{name: "a", wantDup: true}, // a single statement, a unique violation
		{name: "e"},
	}
	type result struct {
		err      error
		panicked any
	}
	results := make([]result, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			defer func() { results[i].panicked = recover() }()
			if c.wantDup {
				_, results[i].err = db.Create(ctx, tbl, []datastore.Record{{"name": c.name}})
				return
			}
			results[i].err = db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
				if _, err := tx.Create(ctx, tbl, []datastore.Record{{"name": c.name}}); err != nil {
					return err
				}
				if c.panics {
					panic("panic on purpose")
				}
				if c.fail {
					return errFailed
				}
				return nil
			})
		})
		// In order: the first queued is the next group's first.
		queued(i + 1)
	}
	release()
	wg.Wait()
	for i, c := range calls {
		r := results[i]
		switch {
		case c.panics:
			if r.panicked != "panic on purpose" {
				t.Errorf("%s: panic %v, err %v; want the function's panic in its caller", c.name, r.panicked, r.err)
			}
		case c.wantDup:
			if !isUnique(r.err) {
				t.Errorf("%s (again): %v, want a unique violation", c.name, r.err)
			}
		case !errors.Is(r.err, c.want) || r.panicked != nil:
			t.Errorf("%s: %v (panic %v), want %v", c.name, r.err, r.panicked, c.want)
		}
	}
	want := []string{"a", "c", "e", "leader"}
	if leaderFails {
		want = want[:3]
	}
	if got := names(t, db, tbl); !slices.Equal(got, want) {
		t.Fatalf("stored %q, want %q", got, want)
	}
}

// TestGroupCancelledWhileQueued: a call whose context ends while it waits
// returns the context's error and its function never runs; the calls
// around it are not held up.
func TestGroupCancelledWhileQueued(t *testing.T) {
	db := openFile(t)
	tbl := groupTable(t, db)
	release, queued := holdLead(t, db, tbl, false)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	ran := make(chan string, 2)
	go func() {
		errs <- db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
			ran <- "cancelled"
			return nil
		})
	}()
	queued(1)
	go func() {
		errs <- db.InTx(context.Background(), func(ctx context.Context, tx datastore.Adapter) error {
			ran <- "kept"
			_, err := tx.Create(ctx, tbl, []datastore.Record{{"name": "kept"}})
			return err
		})
	}()
	queued(2)
	cancel()
	// The cancelled call leaves the queue before the lead is released.
	inQueue := func() int {
		db.group.mu.Lock()
		defer db.group.mu.Unlock()
		return len(db.group.queue)
	}
	for deadline := time.Now().Add(10 * time.Second); inQueue() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled call is still queued")
		}
	}
	release()
	var got []error
	for range 2 {
		got = append(got, <-errs)
	}
	if !slices.ContainsFunc(got, func(err error) bool { return errors.Is(err, context.Canceled) }) || !slices.Contains(got, nil) {
		t.Fatalf("outcomes %v, want one nil and one context.Canceled", got)
	}
	close(ran)
	var fns []string
	for f := range ran {
		fns = append(fns, f)
	}
	if !slices.Equal(fns, []string{"kept"}) {
		t.Fatalf("functions run: %q, want only the kept one's", fns)
	}
	if got, want := names(t, db, tbl), []string{"kept", "leader"}; !slices.Equal(got, want) {
		t.Fatalf("stored %q, want %q", got, want)
	}
}

// TestGroupConcurrentWriters: many writers at once, single statements and
// transactions, every success stored exactly once and nothing else.
func TestGroupConcurrentWriters(t *testing.T) {
	db := openFile(t)
	tbl := groupTable(t, db)
	ctx := context.Background()
	const writers, each = 16, 40
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		kept []string
	)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("w%d-%d", w, i)
				var err error
				switch i % 4 {
				case 0: // a duplicate of this writer's last single create: refused
					if i == 0 {
						continue
					}
					_, err = db.Create(ctx, tbl, []datastore.Record{{"name": fmt.Sprintf("w%d-%d", w, i-3)}})
					if !isUnique(err) {
						t.Errorf("%s: duplicate gave %v", name, err)
					}
					continue
				case 1:
					_, err = db.Create(ctx, tbl, []datastore.Record{{"name": name}})
				case 2: // two rows, all or none
					_, err = db.Create(ctx, tbl, []datastore.Record{{"name": name}, {"name": name + "b"}})
					if err == nil {
						mu.Lock()
						kept = append(kept, name+"b")
						mu.Unlock()
					}
				case 3: // written, then undone
					err = db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
						if _, err := tx.Create(ctx, tbl, []datastore.Record{{"name": name}}); err != nil {
							return err
						}
						return errors.New("undo")
					})
					if err == nil || err.Error() != "undo" {
						t.Errorf("%s: %v, want undo", name, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				mu.Lock()
				kept = append(kept, name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(kept)
	if got := names(t, db, tbl); !slices.Equal(got, kept) {
		t.Fatalf("stored %d names, want the %d kept: %q", len(got), len(kept), got)
	}
}

func isUnique(err error) bool {
	var ue *datastore.UniqueError
	return errors.As(err, &ue)
}

// TestGroupBounded: more calls queue than a group takes (maxGroup); the
// rest run in the next group, led by the first of them, and all commit.
func TestGroupBounded(t *testing.T) {
	db := openFile(t)
	tbl := groupTable(t, db)
	ctx := context.Background()
	release, queued := holdLead(t, db, tbl, false)
	const n = maxGroup + 8
	var wg sync.WaitGroup
	want := []string{"leader"}
	for i := range n {
		name := fmt.Sprint("item ", i)
		want = append(want, name)
		wg.Go(func() {
			if _, err := db.Create(ctx, tbl, []datastore.Record{{"name": name}}); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		})
	}
	queued(n)
	release()
	wg.Wait()
	slices.Sort(want)
	if got := names(t, db, tbl); !slices.Equal(got, want) {
		t.Fatalf("stored %q, want %q", got, want)
	}
}

// TestGroupGoexit: a function that calls runtime.Goexit (a test's
// t.FailNow) unwinds the goroutine running its group, which is another
// caller's. The group's transaction is then abandoned: nothing of it is
// stored, the functions taken for it get errAbandoned, the caller of the
// Goexit goes on with it, and the next write finds the lead free.
func TestGroupGoexit(t *testing.T) {
	db := openFile(t)
	tbl := groupTable(t, db)
	ctx := context.Background()
	create := func(name string) func(ctx context.Context, tx datastore.Adapter) error {
		return func(ctx context.Context, tx datastore.Adapter) error {
			_, err := tx.Create(ctx, tbl, []datastore.Record{{"name": name}})
			return err
		}
	}
	queued := func(n int) { waitQueued(t, db, n) }
	hold, started := make(chan struct{}), make(chan struct{})
	leaderReturned, leaderGone := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(leaderGone)
		leaderReturned <- db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
			close(started)
			<-hold
			return create("leader")(ctx, tx)
		})
	}()
	<-started
	aReturned := make(chan error, 1)
	go func() { aReturned <- db.InTx(ctx, create("a")) }()
	queued(1)
	bGone := make(chan struct{})
	go func() {
		defer close(bGone)
		db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
			if err := create("b")(ctx, tx); err != nil {
				return err
			}
			runtime.Goexit()
			return nil
		})
		t.Error("InTx returned after its function called runtime.Goexit")
	}()
	queued(2)
	close(hold)
	<-bGone
	<-leaderGone
	select {
	case err := <-leaderReturned:
		t.Errorf("the group's goroutine returned (%v); the Goexit ran on it", err)
	default:
	}
	if err := <-aReturned; !errors.Is(err, errAbandoned) {
		t.Errorf("a: %v, want errAbandoned", err)
	}
	if _, err := db.Create(ctx, tbl, []datastore.Record{{"name": "after"}}); err != nil {
		t.Fatalf("a write after the abandoned group: %v", err)
	}
	if got, want := names(t, db, tbl), []string{"after"}; !slices.Equal(got, want) {
		t.Fatalf("stored %q, want %q", got, want)
	}
}
