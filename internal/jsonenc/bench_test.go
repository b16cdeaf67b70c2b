package jsonenc

import (
	"fmt"
	"testing"

	"github.com/skiffhq/skiff/model"
)

// BenchmarkAppendJSON encodes what GET /pet?limit=30 answers in the
// example app: 30 pets, each with its owner and one tag populated.
func BenchmarkAppendJSON(b *testing.B) {
	recs := make([]model.Record, 30)
	for i := range recs {
		recs[i] = model.Record{
			"id": float64(i + 1), "createdAt": 1763938000123.0 + float64(i), "updatedAt": 1763938000123.0 + float64(i),
			"name": fmt.Sprintf("Pet %d", i+1), "species": "cat", "vaccinated": nil,
			"owner": model.Record{
				"id": float64(i/10 + 1), "createdAt": 1763937000123.0, "updatedAt": 1763937000123.0,
				"name": fmt.Sprintf("User %d", i/10+1), "email": fmt.Sprintf("user%d@example.com", i/10+1), "age": nil,
			},
			"tags": []model.Record{{"id": float64(i/10 + 1), "createdAt": 1763939000123.0, "updatedAt": 1763939000123.0, "label": "tag 1"}},
		}
	}
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], recs, nil); err != nil {
			b.Fatal(err)
		}
	}
}
