package datastoretest

import (
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

// bag is the fixture of the JSON key tests: a Merge column "extra" holding
// values of every JSON type, ids 1 to 5.
func bag(t *testing.T, a datastore.Adapter) *datastore.Table {
	t.Helper()
	tbl := &datastore.Table{Name: tableName(t, "bag"), PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true, AutoIncrement: true, NotNull: true},
		{Name: "name", Kind: datastore.String},
		{Name: "extra", Kind: datastore.JSON, Merge: true},
	}}
	define(t, a, datastore.MigrateDrop, tbl)
	create(t, a, tbl,
		datastore.Record{"name": "a", "extra": map[string]any{"s": "red", "n": 3.0, "b": true, "l": []any{1.0}, "o": map[string]any{"k": "v"}, "z": nil}},
		datastore.Record{"name": "b", "extra": map[string]any{"s": "blue", "n": 10.5, "b": false}},
		datastore.Record{"name": "c", "extra": map[string]any{"s": "10", "n": "3", "b": 1.0}},
		datastore.Record{"name": "d", "extra": map[string]any{}},
		datastore.Record{"name": "e"},
	)
	return tbl
}

func key(k string, o criteria.Op, v any) *criteria.Cmp {
	return &criteria.Cmp{Attr: "extra", Key: k, Op: o, Value: v}
}

func testJSONKeys(t *testing.T, a datastore.Adapter) {
	tbl := bag(t, a)
	got := find(t, a, where(tbl, eq("id", 1.0)))
	diff(t, "stored object", got, []datastore.Record{{"id": 1.0, "name": "a",
		"extra": map[string]any{"s": "red", "n": 3.0, "b": true, "l": []any{1.0}, "o": map[string]any{"k": "v"}, "z": nil}}})
	diff(t, "absent object", find(t, a, where(tbl, eq("id", 5.0)))[0]["extra"], nil)

	tests := []struct {
		name string
		e    criteria.Expr
		want []any
	}{
		{"eq string", key("s", criteria.Eq, "red"), nums(1)},
		{"eq string is not a number", key("s", criteria.Eq, "10"), nums(3)},
		{"eq number", key("n", criteria.Eq, 3.0), nums(1)},
		{"eq int64", key("n", criteria.Eq, int64(3)), nums(1)},
		{"eq number is not a string", key("n", criteria.Eq, 10.5), nums(2)},
		{"eq true", key("b", criteria.Eq, true), nums(1)},
		{"eq false", key("b", criteria.Eq, false), nums(2)},
		{"eq 1 is not true", key("b", criteria.Eq, 1.0), nums(3)},
		{"eq null: null or absent", key("z", criteria.Eq, nil), nums(1, 2, 3, 4, 5)},
		{"eq null, key absent", key("s", criteria.Eq, nil), nums(4, 5)},
		{"ne null", key("s", criteria.Ne, nil), nums(1, 2, 3)},
		{"ne matches absent", key("s", criteria.Ne, "red"), nums(2, 3, 4, 5)},
		{"in mixed types", key("n", criteria.In, []any{3.0, "3"}), nums(1, 3)},
		{"in with null", key("s", criteria.In, []any{"blue", nil}), nums(2, 4, 5)},
		{"nin", key("n", criteria.Nin, []any{3.0, 10.5}), nums(3, 4, 5)},
		{"nin with null", key("s", criteria.Nin, []any{"red", nil}), nums(2, 3)},
		{"lt number", key("n", criteria.Lt, 5.0), nums(1)},
		{"gte number", key("n", criteria.Gte, 3.0), nums(1, 2)},
		{"gt string", key("s", criteria.Gt, "blue"), nums(1)},
		{"lte string", key("s", criteria.Lte, "2"), nums(3)},
		{"gt boolean never", key("b", criteria.Gt, false), nums()},
		{"like strings only", key("s", criteria.Like, "%e%"), nums(1, 2)},
		{"like is case-sensitive", key("s", criteria.Like, "R%"), nums()},
		{"like on a number", key("n", criteria.Like, "3%"), nums(3)},
		{"like on a list", key("l", criteria.Like, "%1%"), nums()},
		{"or of keys and columns", or(key("s", criteria.Eq, "red"), eq("name", "d")), nums(1, 4)},
		{"and of keys", and(key("s", criteria.Ne, nil), key("n", criteria.Gt, 1.0)), nums(1, 2)},
	}
	for _, tt := range tests {
		diff(t, label("Find(%s)", tt.name), ids(find(t, a, where(tbl, tt.e))), tt.want)
		if n := count(t, a, where(tbl, tt.e)); n != int64(len(tt.want)) {
			t.Errorf("Count(%s) = %d, want %d", tt.name, n, len(tt.want))
		}
	}

	sorted := func(desc bool) []any {
		q := where(tbl, key("n", criteria.Ne, nil))
		q.Sort = []criteria.Sort{{Attr: "extra", Key: "n", Desc: desc}}
		return ids(find(t, a, q))
	}
	// Numbers among themselves order numerically; the string "3" is
	// placed wherever the engine puts strings, so only 1 and 2 are checked.
	onlyNumbers := func(list []any) []any {
		var out []any
		for _, id := range list {
			if id != 3.0 {
				out = append(out, id)
			}
		}
		return out
	}
	diff(t, "sort by key ASC", onlyNumbers(sorted(false)), nums(1, 2))
	diff(t, "sort by key DESC", onlyNumbers(sorted(true)), nums(2, 1))
	q := all(tbl)
	q.Sort = []criteria.Sort{{Attr: "extra", Key: "s"}}
	q.Limit = 3
	diff(t, "sort by a string key, absent first", ids(find(t, a, q)), nums(4, 5, 3))

	// Update merges: given keys replace theirs (null included), others stay;
	// a row without an object gets one.
	uq := where(tbl, key("s", criteria.In, []any{"red", nil}))
	uq.Fetch = true
	upd, err := a.Update(t.Context(), uq, datastore.Record{"name": "u", "extra": map[string]any{"s": nil, "n": 4.0, "added": []any{"x"}}})
	if err != nil {
		t.Fatalf("Update(merge) = %v", err)
	}
	diff(t, "Update(merge) result", upd, []datastore.Record{
		{"id": 1.0, "name": "u", "extra": map[string]any{"s": nil, "n": 4.0, "b": true, "l": []any{1.0}, "o": map[string]any{"k": "v"}, "z": nil, "added": []any{"x"}}},
		{"id": 4.0, "name": "u", "extra": map[string]any{"s": nil, "n": 4.0, "added": []any{"x"}}},
		{"id": 5.0, "name": "u", "extra": map[string]any{"s": nil, "n": 4.0, "added": []any{"x"}}},
	})
	diff(t, "untouched row", find(t, a, where(tbl, eq("id", 2.0)))[0]["extra"], map[string]any{"s": "blue", "n": 10.5, "b": false})
	diff(t, "Find after merge", ids(find(t, a, where(tbl, key("n", criteria.Eq, 4.0)))), nums(1, 4, 5))

	// Keys that are not plain identifiers are refused, never spliced.
	for _, bad := range []string{`a"b`, "a.b", "$[0]", "a b", "9x", `a\b`} {
		if _, err := a.Find(t.Context(), where(tbl, key(bad, criteria.Eq, 1.0))); err == nil {
			t.Errorf("Find(key %q) error = nil, want a refusal", bad)
		}
		if _, err := a.Update(t.Context(), all(tbl), datastore.Record{"extra": map[string]any{bad: 1.0}}); err == nil {
			t.Errorf("Update(key %q) error = nil, want a refusal", bad)
		}
	}
	diff(t, "rows after refused updates", ids(find(t, a, where(tbl, key("n", criteria.Eq, 4.0)))), nums(1, 4, 5))
}
