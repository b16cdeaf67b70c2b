package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/skiffhq/skiff/datastore"
)

// Group commit. SQLite has one writer, so transactions queue for the
// write connection anyway; what a transaction costs beyond its statements
// is mostly its commit (the WAL frames written, the wal-index updated).
// The transactions that queue while one runs therefore join it before it
// commits (or, when it was a lone statement, run together in the next),
// each inside a savepoint of its own, and commit once: under concurrent
// writes a commit is shared, and a transaction that finds no other waiting
// starts at once, so a lone writer waits for nothing. Each caller still gets its own outcome: a function that fails
// is rolled back to its savepoint and gets its error, the others commit;
// when the commit itself fails, every function of the group gets that
// error, since none of their writes were kept.

// maxGroup bounds how many transactions share a commit, so that the first
// of a group is answered after a bounded number of others.
const maxGroup = 32

// txJob is one InTx call waiting for, or running in, a group.
type txJob struct {
	ctx context.Context
	fn  func(ctx context.Context, tx datastore.Adapter) error
	// single is set for one statement, which needs no transaction of its
	// own when it runs alone.
	single bool
	// wake receives true when the job's caller is to lead the next group,
	// false when the job has run and err (or panicked) is its outcome.
	wake     chan bool
	err      error
	panicked bool
	panicVal any
	// goexit is set when the function called runtime.Goexit (a test's
	// t.FailNow).
	goexit bool
	state  jobState // guarded by committer.mu
}

type jobState uint8

const (
	jobQueued jobState = iota
	jobLeading
	jobTaken
)

// committer queues InTx calls for the write connection; one caller at a
// time leads, running the queued calls in groups.
type committer struct {
	mu      sync.Mutex
	queue   []*txJob
	leading bool
}

// InTx runs fn in a transaction on the write connection, begun with BEGIN
// IMMEDIATE so that it holds SQLite's write lock from the start and never
// fails to upgrade a read lock halfway. fn must use the Adapter it is
// given: the DB's own write methods wait for the connection the
// transaction holds. fn's writes are kept when it returns nil and the
// transaction commits, and undone when it returns an error or panics (the
// panic goes on in the caller).
//
// Calls that queue while another runs join its transaction or the next,
// each in a savepoint (see Group commit above), so fn may run on another
// goroutine than its caller's, and, once it has started, runs to its end
// even if ctx is cancelled: its statements share a transaction with other
// callers', which SQLite would roll back whole if one of them were
// interrupted. A call whose ctx ends before fn starts returns ctx's error.
// A panic in fn goes on in its caller, after fn's writes are undone; a
// runtime.Goexit in fn (a test's t.FailNow) also ends the goroutine fn ran
// on, which may be another caller's, and abandons the whole transaction:
// its other callers get an error, and nothing of it is kept.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	if err := db.check(); err != nil {
		return err
	}
	return db.inGroup(ctx, fn, false)
}

// writeOne runs fn, which makes one statement, on the write connection:
// on its own, as the statement's own transaction, when no other write
// waits; in a group otherwise, so that writes under load share commits.
func (db *DB) writeOne(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error) error {
	if err := db.check(); err != nil {
		return err
	}
	return db.inGroup(ctx, fn, true)
}

// inGroup queues fn for the write connection and waits for its outcome,
// leading the group when no one else does.
func (db *DB) inGroup(ctx context.Context, fn func(ctx context.Context, tx datastore.Adapter) error, single bool) error {
	job := &txJob{ctx: ctx, fn: fn, single: single, wake: make(chan bool, 1)}
	c := &db.group
	c.mu.Lock()
	c.queue = append(c.queue, job)
	if !c.leading {
		c.leading = true
		job.state = jobLeading
		c.mu.Unlock()
		db.lead()
		return job.outcome()
	}
	c.mu.Unlock()
	var lead bool
	select {
	case lead = <-job.wake:
	case <-ctx.Done():
		c.mu.Lock()
		if job.state == jobQueued {
			c.remove(job)
			c.mu.Unlock()
			return ctx.Err()
		}
		c.mu.Unlock()
		lead = <-job.wake
	}
	if lead {
		db.lead()
	}
	return job.outcome()
}

// outcome returns the job's error, or goes on with its function's panic
// or runtime.Goexit.
func (j *txJob) outcome() error {
	if j.panicked {
		panic(j.panicVal)
	}
	if j.goexit {
		runtime.Goexit()
	}
	return j.err
}

// failed reports whether the job's function did not return nil.
func (j *txJob) failed() bool { return j.err != nil || j.panicked || j.goexit }

// run calls the job's function with a, keeping a panic as the job's. A
// runtime.Goexit cannot be stopped: it is noted, and goes on unwinding the
// goroutine running the group, whose deferred calls end the group (see
// runTx) and hand the lead on (see lead).
func (j *txJob) run(ctx context.Context, a datastore.Adapter) {
	normal := false
	defer func() {
		if normal {
			return
		}
		if v := recover(); v != nil {
			j.panicked, j.panicVal = true, v
			return
		}
		j.goexit = true
	}()
	j.err = j.fn(ctx, a)
	normal = true
}

// remove drops a queued job that will not run. c.mu is held.
func (c *committer) remove(job *txJob) {
	for i, j := range c.queue {
		if j == job {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return
		}
	}
}

// take moves up to n queued jobs into the running group. c.mu is held.
func (c *committer) take(n int) []*txJob {
	n = min(n, len(c.queue))
	jobs := make([]*txJob, n)
	copy(jobs, c.queue)
	for _, j := range jobs {
		j.state = jobTaken
	}
	c.queue = c.queue[:copy(c.queue, c.queue[n:])]
	return jobs
}

// lead runs the queued jobs, and those that queue while they run, up to
// maxGroup, then hands the lead to the next queued caller, so that no
// caller leads for longer than one group.
func (db *DB) lead() {
	c := &db.group
	defer c.handOff()
	c.mu.Lock()
	jobs := c.take(maxGroup)
	c.mu.Unlock()
	if len(jobs) == 1 && jobs[0].single {
		// Alone: the statement is its own transaction, and a cancelled
		// context interrupts nothing but it.
		db.runAlone(jobs[0])
		jobs = nil
	}
	budget := maxGroup - len(jobs)
	for len(jobs) > 0 {
		jobs = db.runTx(jobs, &budget)
	}
}

// runAlone runs j, a single statement, as its own transaction.
func (db *DB) runAlone(j *txJob) {
	defer j.done()
	j.run(j.ctx, &tx{db: db, r: runner{cache: db.writes}})
}

// done wakes the job's caller with its outcome.
func (j *txJob) done() { j.wake <- false }

// handOff gives the lead to the first queued caller, or ends it.
func (c *committer) handOff() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) > 0 {
		next := c.queue[0]
		next.state = jobLeading
		next.wake <- true
		return
	}
	c.leading = false
}

// runTx runs jobs, and the jobs that queue meanwhile while budget lasts, in
// one transaction, and wakes each that ran with its outcome. It returns the
// jobs it took but did not run, for a transaction of their own: those after
// a first job that failed, whose rollback took the transaction with it.
func (db *DB) runTx(jobs []*txJob, budget *int) []*txJob {
	g := &groupTx{db: db, taken: jobs}
	returned := false
	defer func() {
		if !returned {
			// A function called runtime.Goexit, which unwinds this goroutine:
			// the transaction is abandoned, and every function taken for it
			// is told so.
			g.abandon()
		}
		for _, j := range g.ran {
			j.wake <- false
		}
	}()
	rest := g.runAll(jobs, budget)
	returned = true
	return rest
}

// groupTx is one group's transaction.
type groupTx struct {
	db    *DB
	sqltx *sql.Tx
	// taken holds the jobs taken for the transaction, ran those run (or
	// refused) in it, to be woken.
	taken, ran []*txJob
	// kept counts the jobs whose writes the transaction holds.
	kept int
	// broken says why the transaction cannot go on, once run has
	// returned false.
	broken error
}

// runAll is runTx's work.
func (g *groupTx) runAll(jobs []*txJob, budget *int) []*txJob {
	// The transaction is no caller's own: its context must not end it.
	sqltx, err := g.db.write.BeginTx(context.WithoutCancel(jobs[0].ctx), nil)
	if err != nil {
		for _, j := range jobs {
			j.err = fmt.Errorf("begin: %w", err)
		}
		g.ran = jobs
		return nil
	}
	g.sqltx = sqltx
	for len(jobs) > 0 {
		for i, j := range jobs {
			g.ran = append(g.ran, j)
			if g.run(j) {
				continue
			}
			// The transaction is lost: what it held is undone.
			sqltx.Rollback()
			for _, k := range g.ran[:len(g.ran)-1] {
				if !k.failed() {
					k.err = g.broken
				}
			}
			return jobs[i+1:]
		}
		if *budget <= 0 {
			break
		}
		g.db.group.mu.Lock()
		jobs = g.db.group.take(*budget)
		g.db.group.mu.Unlock()
		g.taken = append(g.taken, jobs...)
		*budget -= len(jobs)
	}
	if g.kept == 0 {
		sqltx.Rollback()
		return nil
	}
	if err := sqltx.Commit(); err != nil {
		for _, j := range g.ran {
			if !j.failed() {
				j.err = fmt.Errorf("commit: %w", err)
			}
		}
	}
	return nil
}

// abandon ends a transaction left by a Goexit: it is rolled back, and
// every job taken for it that has no outcome of its own gets
// errAbandoned.
func (g *groupTx) abandon() {
	if g.sqltx != nil {
		g.sqltx.Rollback()
	}
	for _, j := range g.taken {
		if !j.failed() {
			j.err = errAbandoned
		}
	}
	g.ran = g.taken
}

// run runs j in the transaction and reports whether the transaction can
// go on. A job with writes before it to protect runs in a savepoint, to
// which it is rolled back when it fails; the first runs without one: when
// it fails, the whole transaction is rolled back, undoing nothing else.
func (g *groupTx) run(j *txJob) bool {
	if err := j.ctx.Err(); err != nil {
		j.err = err
		return true
	}
	ctx := context.WithoutCancel(j.ctx)
	r := runner{cache: g.db.writes, tx: g.sqltx}
	guarded := g.kept > 0
	if guarded {
		if _, err := r.exec(ctx, "SAVEPOINT skiff_group", nil); err != nil {
			j.err = fmt.Errorf("savepoint: %w", err)
			g.broken = j.err
			return false
		}
	}
	j.run(ctx, &tx{db: g.db, r: r})
	failed := j.failed()
	switch {
	case !guarded && failed:
		g.broken = errors.New("sqlite: an earlier transaction of the group failed")
		return false
	case !guarded:
		g.kept++
		return true
	case failed:
		_, err := r.exec(ctx, "ROLLBACK TO skiff_group", nil)
		if err == nil {
			_, err = r.exec(ctx, "RELEASE skiff_group", nil)
		}
		if err != nil {
			// SQLite rolled the whole transaction back (an I/O error, a full
			// disk): the jobs before this one lost their writes too.
			g.broken = fmt.Errorf("transaction rolled back by a failure of another in its group: %w", err)
			return false
		}
		return true
	}
	if _, err := r.exec(ctx, "RELEASE skiff_group", nil); err != nil {
		j.err = fmt.Errorf("release savepoint: %w", err)
		g.broken = j.err
		return false
	}
	g.kept++
	return true
}

// errAbandoned is what the functions of a group get when one of them
// called runtime.Goexit: the group's transaction was rolled back.
var errAbandoned = errors.New("sqlite: transaction abandoned: a function of its group called runtime.Goexit")
