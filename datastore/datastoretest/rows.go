package datastoretest

import (
	"context"
	"errors"
	"testing"

	"github.com/skiffhq/skiff/datastore"
)

// rowRecord is the Record FindJoined (or Find, without nests) makes of row.
func rowRecord(row *datastore.Row) datastore.Record {
	own := len(row.Columns)
	if len(row.Nests) > 0 {
		own = row.Nests[0].From
	}
	rec := datastore.Record{}
	for i, c := range row.Columns[:own] {
		rec[c.Name] = row.Values[i]
	}
	for _, n := range row.Nests {
		if row.Values[n.PK] == nil {
			rec[n.Key] = nil
			continue
		}
		sub := datastore.Record{}
		for i := n.From; i < n.To; i++ {
			sub[row.Columns[i].Name] = row.Values[i]
		}
		rec[n.Key] = sub
	}
	return rec
}

// findRows reads q with joins through rf, each row made a Record.
func findRows(ctx context.Context, rf datastore.RowFinder, q *datastore.Query, joins []datastore.Join) ([]datastore.Record, error) {
	out := []datastore.Record{}
	err := rf.FindRows(ctx, q, joins, func(row *datastore.Row) error {
		if len(row.Values) != len(row.Columns) {
			return errors.New("a row's values and columns differ in number")
		}
		out = append(out, rowRecord(row))
		return nil
	})
	return out, err
}

func testFindRows(t *testing.T, a datastore.Adapter) {
	rf, ok := a.(datastore.RowFinder)
	if !ok {
		t.Skip("the adapter does not implement datastore.RowFinder")
	}
	people, owners, joins := joinFixture(t, a)
	byName, page, picked, keyed := joinQueries(people)
	tests := []struct {
		name  string
		q     *datastore.Query
		joins []datastore.Join
	}{
		{"all", byName, joins},
		{"page", page, joins},
		{"select without the keys", picked, joins},
		{"json key", keyed, joins[:1]},
		{"self only", where(people, eq("name", "p2")), joins[1:]},
		{"none", where(people, eq("name", "nobody")), joins},
		{"no joins", byName, nil},
		{"no joins, selected", picked, nil},
		{"owners", all(owners), nil},
	}
	_, joinable := a.(datastore.JoinFinder)
	for _, tt := range tests {
		if len(tt.joins) > 0 && !joinable {
			continue
		}
		got, err := findRows(t.Context(), rf, tt.q, tt.joins)
		if err != nil {
			t.Errorf("FindRows(%s) = %v", tt.name, err)
			continue
		}
		var want []datastore.Record
		if len(tt.joins) == 0 {
			want = find(t, a, tt.q)
		} else if want, err = a.(datastore.JoinFinder).FindJoined(t.Context(), tt.q, tt.joins); err != nil {
			t.Fatalf("FindJoined(%s) = %v", tt.name, err)
		}
		diff(t, label("FindRows(%s)", tt.name), got, want)
	}

	// each's error ends the read, and comes back as it is.
	calls := 0
	err := rf.FindRows(t.Context(), byName, nil, func(*datastore.Row) error {
		calls++
		return errTest
	})
	if err != errTest || calls != 1 {
		t.Errorf("FindRows with each failing = %v after %d calls, want errTest after 1", err, calls)
	}

	// Inside a transaction, the read sees the transaction's own rows.
	err = a.InTx(t.Context(), func(ctx context.Context, tx datastore.Adapter) error {
		if _, err := tx.Create(ctx, owners, []datastore.Record{{"id": "o3", "name": "Cid"}}); err != nil {
			return err
		}
		rf, ok := tx.(datastore.RowFinder)
		if !ok {
			t.Error("the adapter implements RowFinder but its transactions do not")
			return errTest
		}
		got, err := findRows(ctx, rf, all(owners), nil)
		if err != nil {
			return err
		}
		if len(got) != 3 {
			t.Errorf("FindRows in a transaction = %d rows, want 3", len(got))
		}
		return errTest
	})
	if err != errTest {
		t.Errorf("InTx = %v, want the rollback error", err)
	}
}
