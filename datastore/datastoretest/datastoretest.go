// Package datastoretest is the conformance suite every datastore.Adapter
// must pass, in the spirit of testing/fstest: an adapter's own tests call
// TestAdapter with a function opening a fresh adapter.
package datastoretest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// TestAdapter runs the conformance suite as parallel subtests. open is
// called once per subtest with that subtest's t and must return a usable
// adapter; it may return the same database each time, because every
// subtest uses table names of its own. open should register cleanup (Close)
// with t.Cleanup.
func TestAdapter(t *testing.T, open func(t *testing.T) datastore.Adapter) {
	tests := []struct {
		name string
		fn   func(t *testing.T, a datastore.Adapter)
	}{
		{"DefineDrop", testDefineDrop},
		{"DefineAlter", testDefineAlter},
		{"DefineSafe", testDefineSafe},
		{"Plan", testPlan},
		{"CreateKeys", testCreateKeys},
		{"CreateKinds", testCreateKinds},
		{"CreateTextKey", testCreateTextKey},
		{"Find", testFind},
		{"Sort", testSort},
		{"LimitSkip", testLimitSkip},
		{"Select", testSelect},
		{"PartitionBy", testPartitionBy},
		{"FindThrough", testFindThrough},
		{"FindBatch", testFindBatch},
		{"FindJoined", testFindJoined},
		{"FindRows", testFindRows},
		{"Count", testCount},
		{"JSONKeys", testJSONKeys},
		{"Update", testUpdate},
		{"Destroy", testDestroy},
		{"Unique", testUnique},
		{"LongNames", testLongNames},
		{"InTx", testInTx},
		{"Deferred", testDeferred},
		{"Lock", testLock},
		{"CreateGuarded", testCreateGuarded},
		{"ReplaceCollection", testReplaceCollection},
		{"ConcurrentWriters", testConcurrentWriters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9]+`)

// tableName gives each subtest its own tables on a shared database.
func tableName(t *testing.T, base string) string {
	name := strings.ToLower(t.Name())
	if i := strings.Index(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return "dt_" + unsafeChars.ReplaceAllString(name, "_") + "_" + base
}

// kindsTable has one column of every kind and an auto-increment key.
func kindsTable(name string) *datastore.Table {
	return &datastore.Table{
		Name:       name,
		PrimaryKey: "id",
		Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
			{Name: "s", Kind: datastore.String},
			{Name: "n", Kind: datastore.Number},
			{Name: "i", Kind: datastore.Integer},
			{Name: "b", Kind: datastore.Boolean},
			{Name: "j", Kind: datastore.JSON},
		},
	}
}

func define(t *testing.T, a datastore.Adapter, mode datastore.Migrate, tables ...*datastore.Table) {
	t.Helper()
	if err := a.Define(t.Context(), tables, mode); err != nil {
		t.Fatalf("Define(%s) = %v", mode, err)
	}
}

func create(t *testing.T, a datastore.Adapter, tbl *datastore.Table, recs ...datastore.Record) []datastore.Record {
	t.Helper()
	out, err := a.Create(t.Context(), tbl, recs)
	if err != nil {
		t.Fatalf("Create(%s) = %v", tbl.Name, err)
	}
	if len(out) != len(recs) {
		t.Fatalf("Create(%s) returned %d records, want %d", tbl.Name, len(out), len(recs))
	}
	return out
}

func all(tbl *datastore.Table) *datastore.Query {
	return &datastore.Query{Table: tbl, Limit: criteria.Unlimited}
}

func where(tbl *datastore.Table, e criteria.Expr) *datastore.Query {
	return &datastore.Query{Table: tbl, Where: e, Limit: criteria.Unlimited}
}

func find(t *testing.T, a datastore.Adapter, q *datastore.Query) []datastore.Record {
	t.Helper()
	out, err := a.Find(t.Context(), q)
	if err != nil {
		t.Fatalf("Find(%s) = %v", q.Table.Name, err)
	}
	if out == nil {
		t.Fatalf("Find(%s) = nil slice, want non-nil", q.Table.Name)
	}
	return out
}

func count(t *testing.T, a datastore.Adapter, q *datastore.Query) int64 {
	t.Helper()
	n, err := a.Count(t.Context(), q)
	if err != nil {
		t.Fatalf("Count(%s) = %v", q.Table.Name, err)
	}
	return n
}

// ids lists the "id" values of recs in order.
func ids(recs []datastore.Record) []any {
	out := make([]any, len(recs))
	for i, r := range recs {
		out[i] = r["id"]
	}
	return out
}

func nums(ns ...float64) []any {
	out := make([]any, len(ns))
	for i, n := range ns {
		out[i] = n
	}
	return out
}

func eq(attr string, v any) *criteria.Cmp {
	return &criteria.Cmp{Attr: attr, Op: criteria.Eq, Value: v}
}

func op(attr string, o criteria.Op, v any) *criteria.Cmp {
	return &criteria.Cmp{Attr: attr, Op: o, Value: v}
}

func and(es ...criteria.Expr) *criteria.And { return &criteria.And{Exprs: es} }
func or(es ...criteria.Expr) *criteria.Or   { return &criteria.Or{Exprs: es} }

func diff(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

func uniqueErr(t *testing.T, what string, err error) *datastore.UniqueError {
	t.Helper()
	var ue *datastore.UniqueError
	if !errors.As(err, &ue) {
		t.Fatalf("%s error = %v, want *datastore.UniqueError", what, err)
	}
	return ue
}

// errTest is returned by transaction functions to force a rollback.
var errTest = errors.New("datastoretest: rollback please")

func label(format string, args ...any) string { return fmt.Sprintf(format, args...) }
