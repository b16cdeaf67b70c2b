package datastoretest

import (
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/datastore"
)

func testCreateKeys(t *testing.T, a datastore.Adapter) {
	tbl := kindsTable(tableName(t, "t"))
	define(t, a, datastore.MigrateDrop, tbl)
	got := create(t, a, tbl, datastore.Record{"s": "a"}, datastore.Record{"s": "b"}, datastore.Record{"s": "c"})
	diff(t, "generated ids", ids(got), nums(1, 2, 3))
	diff(t, "created values in order", []any{got[0]["s"], got[1]["s"], got[2]["s"]}, []any{"a", "b", "c"})

	got = create(t, a, tbl, datastore.Record{"id": 100.0, "s": "explicit"})
	if got[0]["id"] != 100.0 {
		t.Errorf("explicit id = %v, want 100", got[0]["id"])
	}
	got = create(t, a, tbl, datastore.Record{"s": "after"}, datastore.Record{"id": int64(50), "s": "int64 key"})
	if id, ok := got[0]["id"].(float64); !ok || id <= 100 {
		t.Errorf("id generated after explicit 100 = %#v, want a float64 > 100", got[0]["id"])
	}
	if got[1]["id"] != 50.0 {
		t.Errorf("explicit int64 id = %#v, want 50.0", got[1]["id"])
	}

	// Several records are created all or none.
	_, err := a.Create(t.Context(), tbl, []datastore.Record{{"s": "fine"}, {"id": 1.0, "s": "dup"}})
	uniqueErr(t, "Create(batch with duplicate key)", err)
	if n := count(t, a, where(tbl, eq("s", "fine"))); n != 0 {
		t.Errorf("rows of a failed batch left behind: %d, want 0", n)
	}

	if got, err := a.Create(t.Context(), tbl, nil); err != nil || len(got) != 0 {
		t.Errorf("Create(nil) = %v, %v; want empty, nil", got, err)
	}
}

func testCreateKinds(t *testing.T, a datastore.Adapter) {
	tbl := kindsTable(tableName(t, "t"))
	define(t, a, datastore.MigrateDrop, tbl)
	recs := []datastore.Record{
		{"s": nil, "n": nil, "i": nil, "b": nil, "j": nil},
		{"s": "", "n": 0.0, "i": 0.0, "b": false, "j": map[string]any{}},
		{"s": "héllo wörld 世界 🎉 'quote' \"dq\" \\ back", "n": 3.25, "i": 1712345678901.0, "b": true,
			"j": map[string]any{"a": []any{1.0, "x", nil, true, map[string]any{"deep": "<b>&"}}, "n": -2.5}},
		{"s": "x", "n": int64(-7), "i": int64(9007199254740), "b": true, "j": []any{"a", 1.0, false}},
		{"j": "just a string"},
		{"j": 12.5},
		{"j": true},
		{"n": 1e-9, "i": -3.0},
	}
	got := create(t, a, tbl, recs...)
	want := []datastore.Record{
		{"id": 1.0, "s": nil, "n": nil, "i": nil, "b": nil, "j": nil},
		{"id": 2.0, "s": "", "n": 0.0, "i": 0.0, "b": false, "j": map[string]any{}},
		{"id": 3.0, "s": "héllo wörld 世界 🎉 'quote' \"dq\" \\ back", "n": 3.25, "i": 1712345678901.0, "b": true,
			"j": map[string]any{"a": []any{1.0, "x", nil, true, map[string]any{"deep": "<b>&"}}, "n": -2.5}},
		{"id": 4.0, "s": "x", "n": -7.0, "i": 9007199254740.0, "b": true, "j": []any{"a", 1.0, false}},
		{"id": 5.0, "s": nil, "n": nil, "i": nil, "b": nil, "j": "just a string"},
		{"id": 6.0, "s": nil, "n": nil, "i": nil, "b": nil, "j": 12.5},
		{"id": 7.0, "s": nil, "n": nil, "i": nil, "b": nil, "j": true},
		{"id": 8.0, "s": nil, "n": 1e-9, "i": -3.0, "b": nil, "j": nil},
	}
	diff(t, "Create result", got, want)
	diff(t, "Find after Create", find(t, a, all(tbl)), want)

	// Values of every kind compare as stored.
	for _, c := range []struct {
		attr string
		v    any
		want []any
	}{
		{"b", true, nums(3, 4)},
		{"b", false, nums(2)},
		{"i", 1712345678901.0, nums(3)},
		{"n", -7.0, nums(4)},
		{"s", "héllo wörld 世界 🎉 'quote' \"dq\" \\ back", nums(3)},
		{"j", "just a string", nums(5)},
	} {
		diff(t, label("Find where %s = %v", c.attr, c.v), ids(find(t, a, where(tbl, eq(c.attr, c.v)))), c.want)
	}
	diff(t, "Find where i > 1e12", ids(find(t, a, where(tbl, op("i", criteria.Gt, 1e12)))), nums(3, 4))
}

func testCreateTextKey(t *testing.T, a datastore.Adapter) {
	tbl := &datastore.Table{Name: tableName(t, "t"), PrimaryKey: "code", Columns: []datastore.Column{
		{Name: "code", Kind: datastore.String, PrimaryKey: true, NotNull: true},
		{Name: "label", Kind: datastore.String},
	}}
	define(t, a, datastore.MigrateDrop, tbl)
	create(t, a, tbl, datastore.Record{"code": "b", "label": "B"}, datastore.Record{"code": "a", "label": "A"})
	got := find(t, a, all(tbl))
	diff(t, "Find text keys in key order", got, []datastore.Record{{"code": "a", "label": "A"}, {"code": "b", "label": "B"}})
	_, err := a.Create(t.Context(), tbl, []datastore.Record{{"code": "a"}})
	ue := uniqueErr(t, "Create(duplicate text key)", err)
	diff(t, "UniqueError.Columns", ue.Columns, []string{"code"})
}
