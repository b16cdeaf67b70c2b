package orm

import (
	"context"

	"github.com/skiffhq/skiff/datastore"
)

// The writes below send their statement with the transaction's next round
// trip where the adapter can (datastore.Deferrer): their rows are never
// needed, and every round trip saved inside a transaction shortens the
// time it holds its locks.

// createLater inserts rows into t without reading them back.
func createLater(ctx context.Context, a datastore.Adapter, t *datastore.Table, rows []datastore.Record) error {
	if d, ok := a.(datastore.Deferrer); ok {
		return d.DeferCreate(ctx, t, rows)
	}
	_, err := a.Create(ctx, t, rows)
	return err
}

// updateLater sets values on the rows q matches without reading them back.
func updateLater(ctx context.Context, a datastore.Adapter, q *datastore.Query, values datastore.Record) error {
	if d, ok := a.(datastore.Deferrer); ok {
		return d.DeferUpdate(ctx, q, values)
	}
	_, err := a.Update(ctx, q, values)
	return err
}

// destroyLater deletes the rows q matches without reading them back.
func destroyLater(ctx context.Context, a datastore.Adapter, q *datastore.Query) error {
	if d, ok := a.(datastore.Deferrer); ok {
		return d.DeferDestroy(ctx, q)
	}
	_, err := a.Destroy(ctx, q)
	return err
}
