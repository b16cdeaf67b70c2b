package metrics_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/skiffhq/skiff/metrics"
)

// BenchmarkObserveRequest is what metrics add to a request.
//
//	go test -run '^$' -bench Observe -benchmem ./metrics/
func BenchmarkObserveRequest(b *testing.B) {
	c := metrics.New(prometheus.NewRegistry())
	b.ReportAllocs()
	for b.Loop() {
		c.ObserveRequest("http", "GET", "GET /pet/:id", 200, 1500*time.Microsecond)
	}
}
