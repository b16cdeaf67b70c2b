package sqlgen

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/skiffhq/skiff/datastore"
)

// SortByPK orders recs by t's primary key ascending, the order Find uses
// when no sort is given; RETURNING rows come back in no promised order.
func SortByPK(t *datastore.Table, recs []datastore.Record) {
	pk := t.PrimaryKey
	slices.SortStableFunc(recs, func(a, b datastore.Record) int { return CompareKeys(a[pk], b[pk]) })
}

// CompareKeys orders two key values as read back from a store: numbers
// by value, strings byte by byte, anything else by its printed form.
func CompareKeys(a, b any) int {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y)
		}
	}
	return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
}
