package orm

import (
	"context"
	"errors"
	"sync"

	"github.com/skiffhq/skiff/datastore"
)

// combiner lets the replaces of one collection of one record that arrive
// while others are under way wait in the process, then go together, in the
// order they came, in one transaction (datastore.CollectionReplacer takes
// several). They could not run side by side anyway: each locks the record.
// Waiting in the engine instead, each would hold a connection and wait
// for the one before it to commit, its wait for the disk included; so on
// a busy record one commit serves several of them. Two groups may be under
// way at once, the second waiting in the engine for the first's lock, so
// that it starts the moment that lock is free; only what comes while both
// are under way waits here.
type combiner struct {
	mu     sync.Mutex
	queues map[combineKey]*combineQueue
}

// combineQueue is the state of one collection in a combiner.
type combineQueue struct {
	running int // groups under way, at most maxRunning
	waiting []*combined
}

// maxRunning is how many groups of one collection may be under way.
const maxRunning = 2

// combineKey names one collection of one record.
type combineKey struct {
	store, table, attr string
	key                any
}

// combined is one replace in a combiner.
type combined struct {
	rep *datastore.Replacement
	// ready is closed when done and err are set, or when group is: the
	// replace is then to run it.
	ready chan struct{}
	group []*combined
	done  *datastore.Replaced
	err   error
}

// maxCombined bounds a group, and so the work one transaction does while
// it holds the record's lock.
const maxCombined = 16

// errGroupFailed is the error of each replace of a group that failed: each
// then runs alone, so that one failing replace fails no other.
var errGroupFailed = errors.New("group of replaces failed")

// run makes the change rep with the others queued for k, through
// replaceAll (see ORM.replaceAll), and returns what it did. A group runs
// under its leader's context; a replace waiting here whose own context
// ends still runs with its group, a wait bounded by one transaction of
// at most maxCombined changes.
func (c *combiner) run(ctx context.Context, k combineKey, rep *datastore.Replacement, replaceAll func(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error)) (*datastore.Replaced, error) {
	me := &combined{rep: rep, ready: make(chan struct{})}
	c.mu.Lock()
	if c.queues == nil {
		c.queues = map[combineKey]*combineQueue{}
	}
	q := c.queues[k]
	if q == nil {
		q = &combineQueue{}
		c.queues[k] = q
	}
	switch {
	case q.running < maxRunning:
		q.running++
		me.group = []*combined{me}
		c.mu.Unlock()
	case len(q.waiting) < maxCombined:
		q.waiting = append(q.waiting, me)
		c.mu.Unlock()
		<-me.ready
	default:
		c.mu.Unlock()
		return alone(ctx, rep, replaceAll)
	}
	if me.group != nil {
		c.lead(ctx, k, me.group, replaceAll)
	}
	if errors.Is(me.err, errGroupFailed) {
		return alone(ctx, rep, replaceAll)
	}
	return me.done, me.err
}

// lead runs group (its leader first, then those that waited), gives each
// its result, then hands the replaces that queued meanwhile to the first of
// them.
func (c *combiner) lead(ctx context.Context, k combineKey, group []*combined, replaceAll func(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error)) {
	defer func() {
		// Even when replaceAll panics, so that no one waits for ever.
		for _, w := range group[1:] {
			close(w.ready)
		}
		c.mu.Lock()
		q := c.queues[k]
		next := q.waiting
		q.waiting = nil
		if len(next) == 0 {
			if q.running--; q.running == 0 {
				delete(c.queues, k)
			}
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		next[0].group = next
		close(next[0].ready)
	}()
	reps := make([]*datastore.Replacement, len(group))
	for i, w := range group {
		reps[i], w.err = w.rep, errGroupFailed
	}
	done, err := replaceAll(ctx, reps)
	for i, w := range group {
		switch {
		case err == nil:
			w.done, w.err = done[i], nil
		case len(group) == 1:
			w.err = err
		}
	}
}

// alone makes the change rep in a transaction of its own.
func alone(ctx context.Context, rep *datastore.Replacement, replaceAll func(context.Context, []*datastore.Replacement) ([]*datastore.Replaced, error)) (*datastore.Replaced, error) {
	done, err := replaceAll(ctx, []*datastore.Replacement{rep})
	if err != nil {
		return nil, err
	}
	return done[0], nil
}
