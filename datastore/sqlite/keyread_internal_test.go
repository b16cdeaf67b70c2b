package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

type ctxKey struct{}

// TestKeyReadContext checks which reads run detached from their request's
// cancellation: only a read of one row by primary key outside a
// transaction, and only when the request is not done already; its
// context keeps the request's values.
func TestKeyReadContext(t *testing.T) {
	table := &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "name", Kind: datastore.String},
	}}
	byKey := &datastore.Query{Table: table, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: float64(42)}, Limit: 2}
	for _, tc := range []struct {
		name     string
		q        *datastore.Query
		r        runner
		detached bool
	}{
		{"by key", byKey, runner{}, true},
		{"by key in a transaction", byKey, runner{tx: &sql.Tx{}}, false},
		{"by another column", &datastore.Query{Table: table, Where: &criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: "x"}}, runner{}, false},
		{"by a key range", &datastore.Query{Table: table, Where: &criteria.Cmp{Attr: "id", Op: criteria.Gt, Value: float64(1)}}, runner{}, false},
		{"key is null", &datastore.Query{Table: table, Where: &criteria.Cmp{Attr: "id", Op: criteria.Eq}}, runner{}, false},
		{"no where", &datastore.Query{Table: table, Limit: 2}, runner{}, false},
		{"key or name", &datastore.Query{Table: table, Where: &criteria.Or{Exprs: []criteria.Expr{
			&criteria.Cmp{Attr: "id", Op: criteria.Eq, Value: float64(1)},
			&criteria.Cmp{Attr: "name", Op: criteria.Eq, Value: "x"},
		}}}, runner{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
			defer cancel()
			got, err := keyReadContext(ctx, tc.r, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if detached := got.Done() == nil; detached != tc.detached {
				t.Errorf("detached = %v, want %v", detached, tc.detached)
			}
			if got.Value(ctxKey{}) != "v" {
				t.Error("the read's context lost the request's values")
			}
			cancel()
			if _, err := keyReadContext(ctx, tc.r, tc.q); tc.detached && !errors.Is(err, context.Canceled) {
				t.Errorf("a done request's key read: err = %v, want context.Canceled", err)
			}
		})
	}
}
