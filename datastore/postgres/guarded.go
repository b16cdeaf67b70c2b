package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var (
	_ datastore.GuardedCreator = (*DB)(nil)
	_ datastore.GuardedCreator = (*session)(nil)
)

// guardLock is the lock a guarded insert takes on the rows it points at:
// the one a foreign key takes. It conflicts with DELETE and with Lock's
// FOR UPDATE, so a cascading destroy or a collection change of those rows
// waits for the insert (or the insert for them), but not with other
// updates, nor with concurrent inserts pointing at the same rows, which
// FOR UPDATE would run one after the other.
const guardLock = "FOR KEY SHARE"

// CreateGuarded implements datastore.GuardedCreator.
func (db *DB) CreateGuarded(ctx context.Context, t *datastore.Table, rec datastore.Record, guards []datastore.Guard) (datastore.Record, error) {
	if err := db.check(); err != nil {
		return nil, err
	}
	return db.session().CreateGuarded(ctx, t, rec, guards)
}

// CreateGuarded implements datastore.GuardedCreator with one statement
// (see sqlgen.InsertGuardedWith): WITH queries reading the guards' rows
// FOR KEY SHARE, an INSERT ... SELECT ... WHERE EXISTS on them, and the
// inserted row with the guards' rows it nests. The check, the locks, the
// insert and the rows an answer needs cost one round trip, and outside a
// transaction run as the statement's own. At READ COMMITTED a guard's row
// that a concurrent transaction deletes makes the lock wait for it, then
// find nothing; one it only updates is found, and returned, in its new
// version.
func (s *session) CreateGuarded(ctx context.Context, t *datastore.Table, rec datastore.Record, guards []datastore.Guard) (datastore.Record, error) {
	if _, ok := explicitKey(t, rec); ok {
		// The sequence would have to move past the key, in a statement
		// of its own, even when the insert is refused.
		return nil, fmt.Errorf("create %s with an explicit key: %w", t.Name, errors.ErrUnsupported)
	}
	st, err := sqlgen.InsertGuardedWith(s.d, t, rec, guards, guardLock)
	if err != nil {
		return nil, fmt.Errorf("create: %w: %w", errors.ErrUnsupported, err)
	}
	recs, err := s.records(ctx, st)
	if err != nil {
		return nil, classify("create", s.d, t, err)
	}
	switch len(recs) {
	case 0:
		return nil, nil
	case 1:
		return recs[0], nil
	}
	return nil, fmt.Errorf("create %s: insert returned %d rows", t.Name, len(recs))
}
