package session

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// TableName is the table DatastoreStore keeps sessions in.
const TableName = "skiff_sessions"

// sweepEvery is how often, at most, a commit also deletes expired rows.
const sweepEvery = 5 * time.Minute

// DatastoreStore keeps sessions in a table of a Skiff datastore (SQLite,
// PostgreSQL, ...), through the same Adapter the models use. It needs no
// background goroutine: expired rows are ignored when read and swept by a
// commit now and then. It is safe for concurrent use.
type DatastoreStore struct {
	db        datastore.Adapter
	table     *datastore.Table
	lastSweep atomic.Int64 // unix nanoseconds
}

var _ scs.CtxStore = (*DatastoreStore)(nil)

// NewDatastoreStore creates the sessions table in db when it is missing
// (whatever the models' migrate setting: the table is Skiff's own) and
// returns a store over it.
func NewDatastoreStore(ctx context.Context, db datastore.Adapter) (*DatastoreStore, error) {
	t := &datastore.Table{Name: TableName, PrimaryKey: "sid", Columns: []datastore.Column{
		{Name: "sid", Kind: datastore.String, PrimaryKey: true, NotNull: true},
		{Name: "data", Kind: datastore.String},
		{Name: "expiresAt", Kind: datastore.Integer, Indexed: true},
	}}
	if err := db.Define(ctx, []*datastore.Table{t}, datastore.MigrateAlter); err != nil {
		return nil, fmt.Errorf("create session table: %w", err)
	}
	s := &DatastoreStore{db: db, table: t}
	s.lastSweep.Store(time.Now().UnixNano())
	return s, nil
}

func (s *DatastoreStore) bySID(token string) *datastore.Query {
	return &datastore.Query{Table: s.table, Where: &criteria.Cmp{Attr: "sid", Op: criteria.Eq, Value: token}, Limit: 1}
}

// FindCtx implements scs.CtxStore.
func (s *DatastoreStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	recs, err := s.db.Find(ctx, s.bySID(token))
	if err != nil {
		return nil, false, fmt.Errorf("find session: %w", err)
	}
	if len(recs) == 0 {
		return nil, false, nil
	}
	if exp, _ := recs[0]["expiresAt"].(float64); exp < float64(time.Now().UnixMilli()) {
		return nil, false, nil
	}
	str, _ := recs[0]["data"].(string)
	b, err := base64.StdEncoding.DecodeString(str)
	if err != nil {
		return nil, false, fmt.Errorf("find session: corrupt data: %w", err)
	}
	return b, true, nil
}

// CommitCtx implements scs.CtxStore: it updates the row of token, or
// inserts it.
func (s *DatastoreStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	values := datastore.Record{"data": base64.StdEncoding.EncodeToString(b), "expiresAt": expiry.UnixMilli()}
	err := s.db.InTx(ctx, func(ctx context.Context, tx datastore.Adapter) error {
		n, err := tx.Count(ctx, s.bySID(token))
		if err != nil {
			return err
		}
		if n > 0 {
			_, err = tx.Update(ctx, s.bySID(token), values)
			return err
		}
		rec := datastore.Record{"sid": token, "data": values["data"], "expiresAt": values["expiresAt"]}
		_, err = tx.Create(ctx, s.table, []datastore.Record{rec})
		return err
	})
	var ue *datastore.UniqueError
	if errors.As(err, &ue) {
		// A concurrent commit inserted the same new session first.
		_, err = s.db.Update(ctx, s.bySID(token), values)
	}
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	s.sweep(ctx)
	return nil
}

// sweep deletes expired sessions, at most once per sweepEvery; a failure
// only leaves them for the next sweep.
func (s *DatastoreStore) sweep(ctx context.Context) {
	now := time.Now()
	last := s.lastSweep.Load()
	if now.UnixNano()-last < int64(sweepEvery) || !s.lastSweep.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	q := &datastore.Query{Table: s.table, Where: &criteria.Cmp{Attr: "expiresAt", Op: criteria.Lt, Value: float64(now.UnixMilli())}, Limit: criteria.Unlimited}
	_, _ = s.db.Destroy(ctx, q)
}

// DeleteCtx implements scs.CtxStore.
func (s *DatastoreStore) DeleteCtx(ctx context.Context, token string) error {
	if _, err := s.db.Destroy(ctx, s.bySID(token)); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// Find implements scs.Store; scs itself calls the Ctx forms.
func (s *DatastoreStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

// Commit implements scs.Store.
func (s *DatastoreStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

// Delete implements scs.Store.
func (s *DatastoreStore) Delete(token string) error {
	return s.DeleteCtx(context.Background(), token)
}
