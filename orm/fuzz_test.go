package orm_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/postgres"
	"github.com/skiffhq/skiff/internal/testenv"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// FuzzFindCriteria runs criteria a client could send, once normalised,
// against SQLite and PostgreSQL: each query answers, or Normalize refuses
// it as the client's mistake; the engine never fails (a 500). The seeds,
// which `go test` runs, include what made the engines fail (issue 19).
func FuzzFindCriteria(f *testing.F) {
	or := func(n int) string {
		s := `{"or":[`
		for i := range n {
			if i > 0 {
				s += ","
			}
			s += `{"name":"n` + string(rune('a'+i%26)) + `"}`
		}
		return s + `]}`
	}
	for _, s := range []string{
		`{"where":{"name":"bob"}}`, `{"name":{"startsWith":"b"}}`, `{"name":"a\u0000b"}`,
		`{"name":{"like":"%\\%_x"}}`, `{"id":{"in":[1,2,3.5,"4"]}}`, `{"id":{"nin":[]}}`, `{"owner":null}`,
		`{"where":{"owner":{"!=":null}},"sort":"name DESC","limit":2,"skip":1}`,
		`{"where":` + or(1100) + `}`, `{"and":[` + or(300) + `,` + or(300) + `]}`,
		`{"id":{"<":1e308}}`, `{"id":{">":-1e308}}`, `{"id":1.5}`, `{"name":{"contains":"*?["}}`,
		`{"select":["name"],"where":{"name":{"endsWith":"%"}}}`,
		`{"id":{">":1e19}}`, `{"id":[1e300,1]}`, `{"id":{"!=":-1e300}}`, `{"owner":1e300}`, `{"id":{"nin":[-1e300]}}`,
		`{"id":{">=":-9223372036854775808}}`, `{"id":{"<=":9223372036854775807}}`,
	} {
		f.Add(s)
	}
	type store struct {
		o *orm.ORM
		m map[string]*model.Model
	}
	var stores []store
	sq := memSQLite(f)
	f.Cleanup(func() { sq.Close() })
	o, m := benchORM(f, sq)
	stores = append(stores, store{o, m})
	pg, err := postgres.Open(f.Context(), datastore.Config{Name: "default", URL: testenv.Postgres(f)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { pg.Close() })
	o, m = benchORM(f, pg)
	stores = append(stores, store{o, m})
	for _, s := range stores {
		owner, _, err := s.o.Create(f.Context(), s.m["owner"], map[string]any{"name": "ann"})
		if err != nil {
			f.Fatal(err)
		}
		if _, _, err := s.o.Create(f.Context(), s.m["pet"], map[string]any{"name": "bob", "owner": owner["id"]}); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		for _, s := range stores {
			c, err := criteria.Normalize(v, s.m["pet"])
			if err != nil {
				if model.KindOf(err) != model.Invalid {
					t.Fatalf("Normalize(%s) = %v, not a client error", in, err)
				}
				return
			}
			if c.Noop {
				continue
			}
			// A query that runs for seconds over two rows is a bug too.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			_, err = s.o.Find(ctx, s.m["pet"], c, []orm.Populate{{Attr: "owner"}})
			cancel()
			if err != nil && model.KindOf(err) != model.Invalid {
				t.Fatalf("Find(%s) = %v", in, err)
			}
		}
	})
}
