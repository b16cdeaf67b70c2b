package sqlgen_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func table() *datastore.Table {
	return &datastore.Table{
		Name:       "user",
		PrimaryKey: "id",
		Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
			{Name: "name", Kind: datastore.String},
			{Name: "email", Kind: datastore.String, Unique: true},
			{Name: "age", Kind: datastore.Integer},
			{Name: "score", Kind: datastore.Number},
			{Name: "admin", Kind: datastore.Boolean},
			{Name: "meta", Kind: datastore.JSON},
			{Name: `we"ird`, Kind: datastore.String, Type: "varchar(40)"},
			{Name: "petId", Kind: datastore.Integer},
		},
		UniqueTogether: [][]string{{"name", "petId"}},
	}
}

// bagTable is a schemaless model's table: its undeclared keys live in the
// Merge column "extra".
func bagTable() *datastore.Table {
	return &datastore.Table{
		Name:       "note",
		PrimaryKey: "id",
		Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
			{Name: "title", Kind: datastore.String},
			{Name: "extra", Kind: datastore.JSON, Merge: true},
		},
	}
}

func kq(where criteria.Expr) *datastore.Query {
	return &datastore.Query{Table: bagTable(), Where: where, Limit: criteria.Unlimited}
}

func key(k string, op criteria.Op, v any) *criteria.Cmp {
	return &criteria.Cmp{Attr: "extra", Key: k, Op: op, Value: v}
}

func q(where criteria.Expr) *datastore.Query {
	return &datastore.Query{Table: table(), Where: where, Limit: criteria.Unlimited}
}

func cmpx(attr string, op criteria.Op, v any) *criteria.Cmp {
	return &criteria.Cmp{Attr: attr, Op: op, Value: v}
}

type gen func(d *sqlgen.Dialect) (sqlgen.Stmt, error)

// links is a join table from groups (group_users) to users (user_groups).
func links() *datastore.Through {
	return &datastore.Through{
		Table: &datastore.Table{Name: "group_users__user_groups", PrimaryKey: "id", Columns: []datastore.Column{
			{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
			{Name: "group_users", Kind: datastore.Integer},
			{Name: "user_groups", Kind: datastore.Integer},
		}},
		ParentColumn: "group_users",
		ChildColumn:  "user_groups",
		Parents:      []any{1.0, 2.0},
	}
}

func through(qq *datastore.Query) gen {
	return func(d *sqlgen.Dialect) (sqlgen.Stmt, error) { return sqlgen.SelectThrough(d, qq, links()) }
}

func sel(qq *datastore.Query) gen {
	return func(d *sqlgen.Dialect) (sqlgen.Stmt, error) { return sqlgen.Select(d, qq) }
}

func cases() []struct {
	name string
	gen  gen
} {
	type c = struct {
		name string
		gen  gen
	}
	with := func(f func(*datastore.Query)) *datastore.Query { qq := q(nil); f(qq); return qq }
	return []c{
		{"select all", sel(q(nil))},
		{"eq", sel(q(cmpx("name", criteria.Eq, "ann")))},
		{"eq nil", sel(q(cmpx("name", criteria.Eq, nil)))},
		{"ne", sel(q(cmpx("name", criteria.Ne, "ann")))},
		{"ne nil", sel(q(cmpx("name", criteria.Ne, nil)))},
		{"lt lte gt gte", sel(q(&criteria.And{Exprs: []criteria.Expr{
			cmpx("age", criteria.Lt, 10.0), cmpx("age", criteria.Lte, 11.0),
			cmpx("score", criteria.Gt, 1.5), cmpx("score", criteria.Gte, 2.5)}}))},
		{"fractional integer bounds", sel(q(&criteria.And{Exprs: []criteria.Expr{
			cmpx("age", criteria.Lt, 1.5), cmpx("age", criteria.Lte, 1.5),
			cmpx("age", criteria.Gt, 1.5), cmpx("age", criteria.Gte, 1.5),
			cmpx("age", criteria.Eq, 1.5), cmpx("age", criteria.Ne, 1.5)}}))},
		{"in", sel(q(cmpx("name", criteria.In, []any{"a", "b"})))},
		{"in with null", sel(q(cmpx("name", criteria.In, []any{"a", nil})))},
		{"in empty", sel(q(cmpx("name", criteria.In, []any{})))},
		{"nin", sel(q(cmpx("name", criteria.Nin, []any{"a", "b"})))},
		{"nin with null", sel(q(cmpx("name", criteria.Nin, []any{"a", nil})))},
		{"nin empty", sel(q(cmpx("name", criteria.Nin, []any{})))},
		{"like", sel(q(cmpx("name", criteria.Like, `%a_b\%c*?[%`)))},
		{"like non-text", sel(q(cmpx("age", criteria.Like, `1%`)))},
		{"and or nesting", sel(q(&criteria.Or{Exprs: []criteria.Expr{
			&criteria.And{Exprs: []criteria.Expr{cmpx("name", criteria.Eq, "a"), cmpx("admin", criteria.Eq, true)}},
			&criteria.And{},
			&criteria.Or{},
			cmpx("meta", criteria.Eq, map[string]any{"k": "v"}),
		}}))},
		{"quoted identifier", sel(q(cmpx(`we"ird`, criteria.Eq, "x")))},
		{"sort limit skip select", sel(with(func(qq *datastore.Query) {
			qq.Sort = []criteria.Sort{{Attr: "age", Desc: true}, {Attr: "name"}}
			qq.Limit, qq.Skip = 10, 20
			qq.Select = []string{"id", "name"}
		}))},
		{"sort by pk desc", sel(with(func(qq *datastore.Query) { qq.Sort = []criteria.Sort{{Attr: "id", Desc: true}} }))},
		{"skip only", sel(with(func(qq *datastore.Query) { qq.Skip = 5 }))},
		{"partition", sel(with(func(qq *datastore.Query) {
			qq.Where = cmpx("petId", criteria.In, []any{1.0, 2.0})
			qq.PartitionBy = "petId"
			qq.Sort = []criteria.Sort{{Attr: "name"}}
			qq.Limit, qq.Skip = 2, 1
			qq.Select = []string{"id", "petId"}
		}))},
		{"partition skip only", sel(with(func(qq *datastore.Query) { qq.PartitionBy = "petId"; qq.Skip = 1 }))},
		{"partition unlimited", sel(with(func(qq *datastore.Query) { qq.PartitionBy = "petId" }))},
		{"through", through(with(func(qq *datastore.Query) {
			qq.Where = cmpx("admin", criteria.Eq, true)
			qq.Sort = []criteria.Sort{{Attr: "name", Desc: true}}
			qq.Limit = 61
			qq.Select = []string{"id", "name"}
		}))},
		{"through partition", through(with(func(qq *datastore.Query) {
			qq.Where = &criteria.Or{Exprs: []criteria.Expr{cmpx("age", criteria.Gt, 3.0), cmpx("name", criteria.Like, "a%")}}
			qq.PartitionBy = datastore.ParentKey
			qq.Sort = []criteria.Sort{{Attr: "age"}}
			qq.Limit, qq.Skip = 2, 1
		}))},
		{"through skip only", through(with(func(qq *datastore.Query) { qq.Skip = 3 }))},
		{"linked", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			qq := q(cmpx("id", criteria.In, []any{3.0, 4.0}))
			qq.Select = []string{"id"}
			qq.Sort = []criteria.Sort{{Attr: "id"}}
			return sqlgen.SelectUnion(d, qq, nil, links())
		}},
		{"linked only", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) { return sqlgen.SelectUnion(d, q(nil), nil, links()) }},
		{"union or", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			qq := q(cmpx("id", criteria.In, []any{3.0, 4.0}))
			qq.Select = []string{"id", "petId"}
			return sqlgen.SelectUnion(d, qq, cmpx("petId", criteria.Eq, 7.0), nil)
		}},
		{"replace through", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.ReplaceCollection(d, &datastore.Replacement{
				Parent: links().Table, Key: 1.0, Child: table(), Want: []any{3.0, 2.0}, Through: links(),
			})
		}},
		{"replace one-to-many", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.ReplaceCollection(d, &datastore.Replacement{
				Parent: links().Table, Key: 7.0, Child: table(), Want: []any{}, Via: "petId",
			})
		}},
		{"replace one-to-many required", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.ReplaceCollection(d, &datastore.Replacement{
				Parent: links().Table, Key: 7.0, Child: table(), Want: []any{int64(4)}, Via: "petId", Required: true,
			})
		}},
		{"count", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Count(d, q(cmpx("admin", criteria.Eq, false)))
		}},
		{"insert", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Insert(d, table(), datastore.Record{"name": "a", "age": 3.0, "meta": []any{1.0, "x"}, "admin": true})
		}},
		{"insert guarded", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			// user.petId points at a note (as if), user.age at a user.
			return sqlgen.InsertGuarded(d, table(), datastore.Record{"name": "a", "petId": int64(7), "age": 3.0},
				[]datastore.Guard{{Table: bagTable(), Key: 7.0}, {Table: table(), Key: 3.0}}, "FOR KEY SHARE")
		}},
		{"insert guarded returning", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			// The note's row is read by RETURNING's subqueries; the user's only checked.
			return sqlgen.InsertGuarded(d, table(), datastore.Record{"name": "a", "petId": int64(7), "age": 3.0},
				[]datastore.Guard{{Table: bagTable(), Key: 7.0, Column: "petId"}, {Table: table(), Key: 3.0}}, "")
		}},
		{"insert guarded with", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			// The note's row is returned in place of petId; the user's only checked.
			return sqlgen.InsertGuardedWith(d, table(), datastore.Record{"name": "a", "petId": int64(7), "age": 3.0},
				[]datastore.Guard{{Table: bagTable(), Key: 7.0, Column: "petId"}, {Table: table(), Key: 3.0}}, "FOR KEY SHARE")
		}},
		{"insert rows", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.InsertRows(d, table(), []datastore.Record{{"name": "a", "age": 3.0}, {"age": 4.0, "name": "b"}})
		}},
		{"insert defaults", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Insert(d, table(), datastore.Record{})
		}},
		{"update", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Update(d, q(cmpx("id", criteria.Eq, 1.0)), datastore.Record{"name": "b", "meta": "s"})
		}},
		{"update fetch", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			qq := q(cmpx("id", criteria.In, []any{1.0, 2.0}))
			qq.Fetch = true
			return sqlgen.Update(d, qq, datastore.Record{"score": int64(2)})
		}},
		{"delete", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) { return sqlgen.Delete(d, q(nil)) }},
		{"delete fetch", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			qq := q(cmpx("name", criteria.Like, "a%"))
			qq.Fetch = true
			return sqlgen.Delete(d, qq)
		}},
		{"create table", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Stmt{SQL: strings.Join(sqlgen.CreateTable(d, table()), ";\n")}, nil
		}},
		{"create join table", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			t := links().Table
			t.Columns[1].Indexed, t.Columns[2].Indexed = true, true
			t.UniqueTogether = [][]string{{"group_users", "user_groups"}}
			return sqlgen.Stmt{SQL: strings.Join(sqlgen.CreateTable(d, t), ";\n")}, nil
		}},
		{"alter", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			t := table()
			return sqlgen.Stmt{SQL: sqlgen.AddColumn(d, "user", &t.Columns[3]) + ";\n" + sqlgen.DropColumn(d, "user", "old") + ";\n" + sqlgen.DropTable(d, "user")}, nil
		}},
		{"key eq string number bool", sel(kq(&criteria.And{Exprs: []criteria.Expr{
			key("color", criteria.Eq, "red"), key("size", criteria.Eq, 3.0), key("done", criteria.Eq, true), key("gone", criteria.Eq, false)}}))},
		{"key eq ne null", sel(kq(&criteria.Or{Exprs: []criteria.Expr{key("color", criteria.Eq, nil), key("size", criteria.Ne, nil)}}))},
		{"key ne", sel(kq(key("color", criteria.Ne, "red")))},
		{"key in nin", sel(kq(&criteria.And{Exprs: []criteria.Expr{
			key("color", criteria.In, []any{"red", 2.0, nil}), key("size", criteria.Nin, []any{1.0, "x"}),
			key("a", criteria.In, []any{}), key("b", criteria.Nin, []any{})}}))},
		{"key order", sel(kq(&criteria.And{Exprs: []criteria.Expr{
			key("size", criteria.Lt, 3.0), key("size", criteria.Gte, int64(1)), key("color", criteria.Gt, "m"), key("done", criteria.Lte, true)}}))},
		{"key like", sel(kq(key("color", criteria.Like, `%re_d\%*%`)))},
		{"key sort", sel(func() *datastore.Query {
			qq := kq(key("color", criteria.Eq, "red"))
			qq.Sort = []criteria.Sort{{Attr: "extra", Key: "size", Desc: true}, {Attr: "title"}}
			qq.Limit = 5
			return qq
		}())},
		{"key partition sort", sel(func() *datastore.Query {
			qq := kq(nil)
			qq.PartitionBy, qq.Limit = "title", 2
			qq.Sort = []criteria.Sort{{Attr: "extra", Key: "size"}}
			return qq
		}())},
		{"insert bag", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Insert(d, bagTable(), datastore.Record{"title": "t", "extra": map[string]any{"color": "red", "n": nil}})
		}},
		{"update merges bag", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Update(d, kq(cmpx("id", criteria.Eq, 1.0)), datastore.Record{"title": "u", "extra": map[string]any{"size": 4.0, "color": nil, "tags": []any{"a"}}})
		}},
		{"update empty bag", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			return sqlgen.Update(d, kq(nil), datastore.Record{"extra": map[string]any{}})
		}},
		{"joined self and bag", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			// user.petId points at a note (as if), user.age at a user:
			// the table joined to itself.
			qq := &datastore.Query{Table: table(), Where: cmpx("name", criteria.Eq, "a"), Sort: []criteria.Sort{{Attr: "score", Desc: true}},
				Limit: 30, Skip: 5, Select: []string{"id", "name"}}
			return sqlgen.SelectJoined(d, qq, []datastore.Join{{Column: "petId", Table: bagTable()}, {Column: "age", Table: table()}})
		}},
		{"joined by key with json key where", func(d *sqlgen.Dialect) (sqlgen.Stmt, error) {
			qq := kq(&criteria.And{Exprs: []criteria.Expr{cmpx("id", criteria.Eq, 1.0), key("color", criteria.Eq, "red")}})
			qq.Limit = 2
			return sqlgen.SelectJoined(d, qq, []datastore.Join{{Column: "title", Table: bagTable()}})
		}},
	}
}

func TestGolden(t *testing.T) {
	for _, d := range []*sqlgen.Dialect{sqlgen.SQLite(), sqlgen.Postgres(), sqlgen.MySQL()} {
		t.Run(d.Name, func(t *testing.T) {
			var sb strings.Builder
			for _, c := range cases() {
				st, err := c.gen(d)
				fmt.Fprintf(&sb, "-- %s --\n", c.name)
				if err != nil {
					fmt.Fprintf(&sb, "error: %v\n", err)
					continue
				}
				fmt.Fprintf(&sb, "%s\n", st.SQL)
				if len(st.Args) > 0 {
					fmt.Fprintf(&sb, "args: %#v\n", st.Args)
				}
			}
			path := filepath.Join("testdata", d.Name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run with -update): %v", err)
			}
			if diff := cmp.Diff(string(want), sb.String()); diff != "" {
				t.Errorf("%s SQL mismatch (-golden +got):\n%s", d.Name, diff)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	d := sqlgen.SQLite()
	tests := []struct {
		name string
		q    *datastore.Query
	}{
		{"unknown where column", q(cmpx("nope", criteria.Eq, 1.0))},
		{"unknown sort column", &datastore.Query{Table: table(), Limit: 1, Sort: []criteria.Sort{{Attr: "nope"}}}},
		{"unknown select column", &datastore.Query{Table: table(), Limit: 1, Select: []string{"nope"}}},
		{"lt null", q(cmpx("age", criteria.Lt, nil))},
		{"in without list", q(cmpx("age", criteria.In, 1.0))},
		{"like without string", q(cmpx("age", criteria.Like, 1.0))},
		{"negative limit", &datastore.Query{Table: table(), Limit: -1}},
		{"key on a non-JSON column", q(&criteria.Cmp{Attr: "name", Key: "k", Op: criteria.Eq, Value: 1.0})},
		{"invalid key", kq(key(`a"b`, criteria.Eq, 1.0))},
		{"key with a path", kq(key("a.b", criteria.Eq, 1.0))},
		{"key compared with an object", kq(key("a", criteria.Eq, map[string]any{}))},
		{"key lt null", kq(key("a", criteria.Lt, nil))},
		{"invalid sort key", &datastore.Query{Table: bagTable(), Limit: 1, Sort: []criteria.Sort{{Attr: "extra", Key: "$[0]"}}}},
	}
	for _, tt := range tests {
		if _, err := sqlgen.Select(d, tt.q); err == nil {
			t.Errorf("Select(%s) error = nil, want an error", tt.name)
		}
	}
	bad := links()
	bad.ParentColumn = "nope"
	for name, j := range map[string]*datastore.Through{"no join table": nil, "unknown join column": bad} {
		if _, err := sqlgen.SelectThrough(d, q(nil), j); err == nil {
			t.Errorf("SelectThrough(%s) error = nil, want an error", name)
		}
	}
	if _, err := sqlgen.SelectThrough(d, &datastore.Query{Table: table(), PartitionBy: "petId", Limit: 1}, links()); err == nil {
		t.Errorf("SelectThrough(partition by a column) error = nil, want an error")
	}
	for name, j := range map[string]*datastore.Through{"no join table": nil, "unknown join column": bad} {
		if j == nil {
			j = &datastore.Through{}
		}
		if _, err := sqlgen.SelectUnion(d, q(nil), nil, j); err == nil {
			t.Errorf("SelectUnion(%s) error = nil, want an error", name)
		}
	}
	if _, err := sqlgen.SelectUnion(d, &datastore.Query{Table: table(), Limit: 1}, nil, links()); err == nil {
		t.Errorf("SelectUnion(limit) error = nil, want an error")
	}
	if _, err := sqlgen.SelectUnion(d, q(nil), nil, nil); err == nil {
		t.Errorf("SelectUnion(no condition) error = nil, want an error")
	}
	if _, err := sqlgen.Update(d, q(nil), datastore.Record{}); err != sqlgen.ErrNoValues {
		t.Errorf("Update(no values) error = %v, want ErrNoValues", err)
	}
	if _, err := sqlgen.Update(d, kq(nil), datastore.Record{"extra": map[string]any{"a b": 1.0}}); err == nil {
		t.Errorf("Update(merge with an invalid key) error = nil, want an error")
	}
	if _, err := sqlgen.Update(d, kq(nil), datastore.Record{"extra": []any{1.0}}); err == nil {
		t.Errorf("Update(merge a list) error = nil, want an error")
	}
	for name, recs := range map[string][]datastore.Record{
		"no rows":       nil,
		"no values":     {{}},
		"other columns": {{"name": "a"}, {"age": 1.0}},
		"same count":    {{"name": "a"}, {"email": "b"}},
		"unknown":       {{"nope": 1.0}},
	} {
		if _, err := sqlgen.InsertRows(d, table(), recs); err == nil {
			t.Errorf("InsertRows(%s) error = nil, want an error", name)
		}
	}
	if _, err := sqlgen.Insert(d, table(), datastore.Record{"nope": 1.0}); err == nil {
		t.Errorf("Insert(unknown column) error = nil, want an error")
	}
}

func TestIndexName(t *testing.T) {
	long := strings.Repeat("x", 80)
	got := sqlgen.IndexName(sqlgen.Postgres(), long, []string{"a"}, "key")
	if len(got) > 63 || !strings.HasSuffix(got, "_key") {
		t.Errorf("IndexName(long) = %q (%d bytes), want <= 63 bytes ending _key", got, len(got))
	}
	if again := sqlgen.IndexName(sqlgen.Postgres(), long, []string{"a"}, "key"); again != got {
		t.Errorf("IndexName not deterministic: %q then %q", got, again)
	}
	if got := sqlgen.IndexName(sqlgen.SQLite(), "t", []string{"a", "b"}, "key"); got != "t_a_b_key" {
		t.Errorf("IndexName(t, a b) = %q, want t_a_b_key", got)
	}
}

func TestEncodeDecode(t *testing.T) {
	tests := []struct {
		kind     datastore.Kind
		in, want any
	}{
		{datastore.Integer, 3.0, int64(3)},
		{datastore.Integer, 3.5, 3.5},
		{datastore.Number, int64(2), 2.0},
		{datastore.JSON, map[string]any{"a": "<b>"}, `{"a":"<b>"}`},
		{datastore.JSON, "s", `"s"`},
		{datastore.String, 1.5, "1.5"},
		{datastore.Boolean, true, true},
		{datastore.String, nil, nil},
	}
	for _, tt := range tests {
		got, err := sqlgen.Encode(tt.kind, tt.in)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("Encode(%v, %#v) = %#v, %v; want %#v", tt.kind, tt.in, got, err, tt.want)
		}
	}
	dec := []struct {
		kind     datastore.Kind
		in, want any
	}{
		{datastore.Integer, int64(3), 3.0},
		{datastore.Boolean, int64(1), true},
		{datastore.Boolean, int64(0), false},
		{datastore.JSON, `{"a":[1,"x"]}`, map[string]any{"a": []any{1.0, "x"}}},
		{datastore.JSON, []byte(`"s"`), "s"},
		{datastore.JSON, map[string]any{}, map[string]any{}},
		{datastore.String, []byte("b"), "b"},
	}
	for _, tt := range dec {
		got, err := sqlgen.Decode(tt.kind, tt.in)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("Decode(%v, %#v) = %#v, %v; want %#v", tt.kind, tt.in, got, err, tt.want)
		}
	}
}

// TestIdentDoublesQuotes checks that a quote inside a name is doubled,
// wherever it is.
func TestIdentDoublesQuotes(t *testing.T) {
	d := sqlgen.Postgres()
	for name, want := range map[string]string{
		"plain":     `"plain"`,
		`a"b`:       `"a""b"`,
		`"`:         `""""`,
		`"edge"s"`:  `"""edge""s"""`,
		"":          `""`,
		`two""more`: `"two""""more"`,
	} {
		if got := d.Ident(name); got != want {
			t.Errorf("Ident(%q) = %s, want %s", name, got, want)
		}
	}
}
