package orm

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/skiffhq/skiff/model"
)

// TestCountDistinct checks the pairwise count of a page's keys against the
// count of a map of them, which it stands for.
func TestCountDistinct(t *testing.T) {
	long := make([]any, 0, 2*maxPairwise)
	for i := range 2 * maxPairwise {
		long = append(long, float64(i%(maxPairwise+3)))
	}
	for _, keys := range [][]any{
		nil,
		{1.0},
		{1.0, 1.0, 1.0},
		{1.0, 2.0, 3.0, 2.0},
		{1.0, int64(1), "1", nil, nil},
		{math.NaN(), math.NaN(), 0.0, math.Copysign(0, -1)},
		{"a", "b", "a", "c"},
		long[:maxPairwise],
		long[:maxPairwise+1],
		long,
	} {
		set := map[any]struct{}{}
		for _, k := range keys {
			set[k] = struct{}{}
		}
		if got, want := countDistinct(keys), len(set); got != want {
			t.Errorf("countDistinct(%s) = %d, want %d", fmt.Sprint(keys), got, want)
		}
	}
}

// TestDistinctPairwise checks that distinct gives the same values in the
// same order whether it compares them pairwise (a page) or through a map
// (more than maxPairwise records).
func TestDistinctPairwise(t *testing.T) {
	var recs []model.Record
	for i := range 3 * maxPairwise {
		var v any = float64(i % 7)
		switch i % 5 {
		case 1:
			v = nil
		case 3:
			v = fmt.Sprint("k", i%4)
		}
		recs = append(recs, model.Record{"owner": v})
	}
	recs = append(recs, model.Record{"owner": model.Record{"id": 1.0}}, model.Record{})
	want := distinct(recs, "owner") // through the map
	if len(recs) <= maxPairwise {
		t.Fatalf("%d records go pairwise", len(recs))
	}
	// The same values, each first met within the first maxPairwise records.
	if got := distinct(recs[:maxPairwise], "owner"); !slices.Equal(got, want) {
		t.Errorf("distinct(first %d) = %v, want %v", maxPairwise, got, want)
	}
}
