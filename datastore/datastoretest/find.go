package datastoretest

import (
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// people is the fixture of the read tests: ids 1 to 8.
func people(t *testing.T, a datastore.Adapter) *datastore.Table {
	t.Helper()
	tbl := &datastore.Table{Name: tableName(t, "people"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "age", Kind: datastore.Integer},
		{Name: "score", Kind: datastore.Number},
		{Name: "admin", Kind: datastore.Boolean},
		{Name: "tag", Kind: datastore.String},
	}}
	define(t, a, datastore.MigrateDrop, tbl)
	row := func(name string, age, score, admin, tag any) datastore.Record {
		return datastore.Record{"name": name, "age": age, "score": score, "admin": admin, "tag": tag}
	}
	create(t, a, tbl,
		row("ann", 30.0, 1.5, true, "x"),
		row("bob", 25.0, nil, false, nil),
		row("Cat", nil, 3.0, nil, "y"),
		row("dan", 40.0, 2.5, true, "x"),
		row("eve", 25.0, 0.5, false, "50%"),
		row("fa_b", 35.0, nil, nil, "5050"),
		row("faxb", 20.0, 1.0, true, nil),
		row("a*b", 50.0, 2.0, false, "y"),
	)
	return tbl
}

func testFind(t *testing.T, a datastore.Adapter) {
	tbl := people(t, a)
	allIDs := nums(1, 2, 3, 4, 5, 6, 7, 8)
	tests := []struct {
		name string
		e    criteria.Expr
		want []any
	}{
		{"nil where", nil, allIDs},
		{"eq", eq("name", "ann"), nums(1)},
		{"eq no match", eq("name", "zed"), nums()},
		{"eq null", eq("tag", nil), nums(2, 7)},
		{"ne matches nulls", op("tag", criteria.Ne, "x"), nums(2, 3, 5, 6, 7, 8)},
		{"ne null", op("tag", criteria.Ne, nil), nums(1, 3, 4, 5, 6, 8)},
		{"lt", op("age", criteria.Lt, 30.0), nums(2, 5, 7)},
		{"lte", op("age", criteria.Lte, 30.0), nums(1, 2, 5, 7)},
		{"gt", op("age", criteria.Gt, 35.0), nums(4, 8)},
		{"gte", op("age", criteria.Gte, 35.0), nums(4, 6, 8)},
		{"gt number", op("score", criteria.Gt, 1.5), nums(3, 4, 8)},
		{"lt string", op("name", criteria.Lt, "b"), nums(1, 3, 8)},
		{"fractional lt on integer", op("age", criteria.Lt, 25.5), nums(2, 5, 7)},
		{"fractional gte on integer", op("age", criteria.Gte, 25.5), nums(1, 4, 6, 8)},
		{"fractional eq on integer", eq("age", 25.5), nums()},
		{"in", op("name", criteria.In, []any{"ann", "dan", "zed"}), nums(1, 4)},
		{"in numbers", op("age", criteria.In, []any{25.0, 50.0}), nums(2, 5, 8)},
		{"in empty", op("name", criteria.In, []any{}), nums()},
		{"in with null", op("tag", criteria.In, []any{"y", nil}), nums(2, 3, 7, 8)},
		{"nin matches nulls", op("tag", criteria.Nin, []any{"x"}), nums(2, 3, 5, 6, 7, 8)},
		{"nin empty", op("tag", criteria.Nin, []any{}), allIDs},
		{"nin with null", op("tag", criteria.Nin, []any{"x", nil}), nums(3, 5, 6, 8)},
		{"in keys", op("id", criteria.In, []any{2.0, 3.0, 8.0}), nums(2, 3, 8)},
		{"in integers with a fraction", op("age", criteria.In, []any{25.0, 25.5, 40.0}), nums(2, 4, 5)},
		{"in scores", op("score", criteria.In, []any{1.5, 2.5}), nums(1, 4)},
		{"in booleans", op("admin", criteria.In, []any{true, false}), nums(1, 2, 4, 5, 7, 8)},
		{"nin two", op("tag", criteria.Nin, []any{"x", "y"}), nums(2, 5, 6, 7)},
		{"nin two with null", op("tag", criteria.Nin, []any{"x", "y", nil}), nums(5, 6)},
		{"nin integers", op("age", criteria.Nin, []any{25.0, 30.0}), nums(3, 4, 6, 7, 8)},
		{"bool true", eq("admin", true), nums(1, 4, 7)},
		{"bool false", eq("admin", false), nums(2, 5, 8)},
		{"bool ne", op("admin", criteria.Ne, true), nums(2, 3, 5, 6, 8)},
		{"and", and(op("age", criteria.Gte, 25.0), eq("admin", true)), nums(1, 4)},
		{"or", or(eq("name", "ann"), and(op("age", criteria.Gte, 40.0), eq("admin", false))), nums(1, 8)},
		{"empty and", and(), allIDs},
		{"empty or", or(), nums()},
		{"and of empty or", and(eq("admin", true), or()), nums()},
		{"or of empty and", or(eq("name", "zed"), and()), allIDs},
		{"nested", and(or(eq("tag", "x"), eq("tag", "y")), op("age", criteria.Lt, 40.0)), nums(1)},
		{"like prefix", op("name", criteria.Like, "a%"), nums(1, 8)},
		{"like is case-sensitive", op("name", criteria.Like, "c%"), nums()},
		{"like upper", op("name", criteria.Like, "C%"), nums(3)},
		{"like contains", op("name", criteria.Like, "%a%"), nums(1, 3, 4, 6, 7, 8)},
		{"like contains upper", op("name", criteria.Like, "%A%"), nums()},
		{"like suffix", op("name", criteria.Like, "%b"), nums(2, 6, 7, 8)},
		{"like exact", op("name", criteria.Like, "eve"), nums(5)},
		{"like escaped percent", op("tag", criteria.Like, `50\%`), nums(5)},
		{"like wildcard percent", op("tag", criteria.Like, "50%"), nums(5, 6)},
		{"like underscore is literal", op("name", criteria.Like, "fa_b"), nums(6)},
		{"like star is literal", op("name", criteria.Like, "a*%"), nums(8)},
		{"like question mark is literal", op("name", criteria.Like, "a?b"), nums()},
		{"like everything", op("tag", criteria.Like, "%"), nums(1, 3, 4, 5, 6, 8)},
	}
	for _, tt := range tests {
		got := find(t, a, where(tbl, tt.e))
		diff(t, label("Find(%s) ids", tt.name), ids(got), tt.want)
	}
}

func testSort(t *testing.T, a datastore.Adapter) {
	tbl := people(t, a)
	tests := []struct {
		name string
		sort []criteria.Sort
		want []any
	}{
		{"default is primary key", nil, nums(1, 2, 3, 4, 5, 6, 7, 8)},
		{"multi-key, nulls lowest", []criteria.Sort{{Attr: "age"}, {Attr: "name", Desc: true}}, nums(3, 7, 5, 2, 1, 6, 4, 8)},
		{"ties broken by key", []criteria.Sort{{Attr: "tag"}}, nums(2, 7, 5, 6, 1, 4, 3, 8)},
		{"desc, nulls last", []criteria.Sort{{Attr: "score", Desc: true}}, nums(3, 4, 8, 1, 7, 5, 2, 6)},
		{"key desc", []criteria.Sort{{Attr: "id", Desc: true}}, nums(8, 7, 6, 5, 4, 3, 2, 1)},
		{"bool", []criteria.Sort{{Attr: "admin", Desc: true}}, nums(1, 4, 7, 2, 5, 8, 3, 6)},
	}
	for _, tt := range tests {
		q := all(tbl)
		q.Sort = tt.sort
		diff(t, label("Find(sort %s) ids", tt.name), ids(find(t, a, q)), tt.want)
	}
}

func testLimitSkip(t *testing.T, a datastore.Adapter) {
	tbl := people(t, a)
	tests := []struct {
		name        string
		limit, skip int64
		sort        []criteria.Sort
		want        []any
	}{
		{"limit", 3, 0, nil, nums(1, 2, 3)},
		{"limit skip", 3, 2, nil, nums(3, 4, 5)},
		{"skip only", criteria.Unlimited, 6, nil, nums(7, 8)},
		{"skip past end", 5, 20, nil, nums()},
		{"limit zero", 0, 0, nil, nums()},
		{"sorted page", 2, 1, []criteria.Sort{{Attr: "age", Desc: true}}, nums(4, 6)},
	}
	for _, tt := range tests {
		q := all(tbl)
		q.Limit, q.Skip, q.Sort = tt.limit, tt.skip, tt.sort
		diff(t, label("Find(%s) ids", tt.name), ids(find(t, a, q)), tt.want)
	}
}

func testSelect(t *testing.T, a datastore.Adapter) {
	tbl := people(t, a)
	q := where(tbl, op("id", criteria.Lte, 2.0))
	q.Select = []string{"id", "name", "admin"}
	diff(t, "Find(select)", find(t, a, q), []datastore.Record{
		{"id": 1.0, "name": "ann", "admin": true},
		{"id": 2.0, "name": "bob", "admin": false},
	})
}

func testPartitionBy(t *testing.T, a datastore.Adapter) {
	tbl := &datastore.Table{Name: tableName(t, "pet"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "owner", Kind: datastore.Integer},
	}}
	define(t, a, datastore.MigrateDrop, tbl)
	pet := func(name string, owner any) datastore.Record { return datastore.Record{"name": name, "owner": owner} }
	create(t, a, tbl, pet("a", 1.0), pet("b", 1.0), pet("c", 1.0), pet("d", 2.0), pet("e", 2.0), pet("f", nil))
	tests := []struct {
		name        string
		where       criteria.Expr
		limit, skip int64
		want        []any
	}{
		{"limit per owner", op("owner", criteria.In, []any{1.0, 2.0}), 2, 0, nums(5, 4, 3, 2)},
		{"skip and limit per owner", op("owner", criteria.In, []any{1.0, 2.0}), 1, 1, nums(4, 2)},
		{"skip only per owner", nil, criteria.Unlimited, 1, nums(4, 2, 1)},
		{"null is its own group", nil, 1, 0, nums(6, 5, 3)},
		{"unlimited", nil, criteria.Unlimited, 0, nums(6, 5, 4, 3, 2, 1)},
	}
	for _, tt := range tests {
		q := where(tbl, tt.where)
		q.PartitionBy = "owner"
		q.Sort = []criteria.Sort{{Attr: "name", Desc: true}}
		q.Limit, q.Skip = tt.limit, tt.skip
		diff(t, label("Find(partition %s) ids", tt.name), ids(find(t, a, q)), tt.want)
	}
}

func testCount(t *testing.T, a datastore.Adapter) {
	tbl := people(t, a)
	tests := []struct {
		name string
		e    criteria.Expr
		want int64
	}{
		{"all", nil, 8},
		{"where", op("age", criteria.Gte, 30.0), 4},
		{"none", op("name", criteria.In, []any{}), 0},
	}
	for _, tt := range tests {
		q := where(tbl, tt.e)
		q.Limit, q.Skip = 1, 1 // ignored by Count
		if got := count(t, a, q); got != tt.want {
			t.Errorf("Count(%s) = %d, want %d", tt.name, got, tt.want)
		}
	}
}
