package socketio

import (
	"testing"
	"time"
)

// TestBacklogLeavesAProcessor checks the flushers' count: every processor
// for a burst, one fewer once the dirty list has stayed non-empty for
// backlogFor, and every processor again once it has been empty.
func TestBacklogLeavesAProcessor(t *testing.T) {
	clock := time.Unix(0, 0)
	started := 0
	f := newFlusher(func(func()) { started++ }, 2)
	f.now = func() time.Time { return clock }
	addN := func(n int) {
		for range n {
			f.add(&Socket{})
		}
	}
	next := func() bool {
		var idle time.Time
		_, ok := f.next(nil, &idle)
		return ok
	}

	addN(3 * flushChunk)
	if started != 2 || f.running != 2 {
		t.Fatalf("a burst started %d flushers (%d running), want 2", started, f.running)
	}
	if !next() || !next() {
		t.Fatal("a young backlog stopped a flusher")
	}
	addN(2 * flushChunk) // the publishers keep ahead of the flushers
	clock = clock.Add(backlogFor + time.Millisecond)
	if next() {
		t.Fatal("with the list backlogged for longer than backlogFor, both flushers went on")
	}
	if f.running != 1 {
		t.Fatalf("%d flushers running, want 1", f.running)
	}
	addN(flushChunk)
	if started != 2 {
		t.Fatal("a backlogged list started a flusher on a second processor")
	}
	for len(f.dirty) > 0 {
		if !next() {
			t.Fatal("the last flusher stopped on a backlog")
		}
	}
	addN(1) // caught up: the next burst gets every processor again
	if started != 3 || f.running != 2 {
		t.Fatalf("after the list emptied, %d started (%d running), want 3 (2)", started, f.running)
	}
}

// TestBacklogNeverStopsTheOnlyFlusher: on one processor the flusher goes
// on whatever the backlog.
func TestBacklogNeverStopsTheOnlyFlusher(t *testing.T) {
	drainAlone(t, 1, 4*flushChunk, backlogFor)
}

// TestLongBurstKeepsEveryProcessor: one fan-out that takes longer than
// backlogFor to write, with nothing added meanwhile, keeps both flushers.
func TestLongBurstKeepsEveryProcessor(t *testing.T) {
	drainAlone(t, 2, 20*flushChunk, backlogFor/2)
}

// drainAlone queues n sockets at once to a flusher of at most max
// goroutines and takes them all with one, its clock moving on by step per
// chunk; it fails if that flusher is told to stop before the list is empty.
func drainAlone(t *testing.T, max, n int, step time.Duration) {
	t.Helper()
	clock := time.Unix(0, 0)
	f := newFlusher(func(func()) {}, max)
	f.now = func() time.Time { return clock }
	for range n {
		f.add(&Socket{})
	}
	for len(f.dirty) > 0 {
		var idle time.Time
		if _, ok := f.next(nil, &idle); !ok {
			t.Fatalf("a flusher stopped with %d of %d sockets left", len(f.dirty), n)
		}
		clock = clock.Add(step)
	}
}
