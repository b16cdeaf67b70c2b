package mysql_test

import (
	"testing"

	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/datastoretest"
	"github.com/skiffhq/skiff/datastore/mysql"
	"github.com/skiffhq/skiff/internal/testenv"
)

func open(t testing.TB) *mysql.DB {
	t.Helper()
	db, err := mysql.Open(t.Context(), datastore.Config{URL: testenv.MySQLDatabase(t)})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAdapter(t *testing.T) {
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter { return open(t) })
}

func TestAdapterSharedDatabase(t *testing.T) {
	shared := open(t)
	datastoretest.TestAdapter(t, func(t *testing.T) datastore.Adapter { return shared })
}

func BenchmarkFindByPK(b *testing.B)   { datastoretest.BenchFindByPK(b, open(b)) }
func BenchmarkFindList30(b *testing.B) { datastoretest.BenchFindList30(b, open(b)) }
func BenchmarkCreate(b *testing.B)     { datastoretest.BenchCreate(b, open(b)) }
