package postgres_test

import (
	"testing"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/datastoretest"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/internal/testenv"
)

func open(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(t.Context(), datastore.Config{URL: testenv.Postgres(t)})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAdapter(t *testing.T) {
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter { return open(t) })
}

func TestAdapterSharedSchema(t *testing.T) {
	shared := open(t)
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter { return shared })
}

func TestOpenWithoutURL(t *testing.T) {
	if _, err := postgres.Open(t.Context(), datastore.Config{}); err == nil {
		t.Errorf("Open without url: error = nil, want an error")
	}
}

func BenchmarkFindByPK(b *testing.B)   { datastoretest.BenchFindByPK(b, open(b)) }
func BenchmarkFindList30(b *testing.B) { datastoretest.BenchFindList30(b, open(b)) }
func BenchmarkCreate(b *testing.B)     { datastoretest.BenchCreate(b, open(b)) }
