package metrics

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestObserveRequestSeries: requests observed through the cached series
// are exported as when every observation looks its series up in the
// vectors, for label sets seen often, once, past the cache's bound, and
// with statuses outside the label table.
func TestObserveRequestSeries(t *testing.T) {
	cachedReg, lookedUpReg := prometheus.NewRegistry(), prometheus.NewRegistry()
	cached, lookedUp := New(cachedReg), New(lookedUpReg)
	observe := func(transport, method, route string, status int, d time.Duration) {
		cached.ObserveRequest(transport, method, route, status, d)
		s := lookedUp.series(requestLabels{transport, method, route, status})
		s.requests.Inc()
		s.duration.Observe(d.Seconds())
	}
	for i := range 50 {
		observe("http", "GET", "GET /pet/:id", 200, time.Duration(i)*100*time.Microsecond)
		observe("socket", "GET", "GET /pet/:id", 200, time.Millisecond)
		observe("http", "POST", "POST /pet", []int{200, 400, 99, 600, 1000}[i%5], 3*time.Millisecond)
	}
	for round := range 2 { // the second round finds the first's in the cache, or past it
		for i := range maxObservers + 100 {
			observe("http", fmt.Sprint("M", i), "", 404, time.Duration(round*i)*time.Microsecond)
		}
	}
	if n := len(cached.observers); n != maxObservers {
		t.Errorf("the cache holds %d label sets, want %d", n, maxObservers)
	}
	export := func(reg *prometheus.Registry) string {
		w := httptest.NewRecorder()
		Handler(reg).ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		return w.Body.String()
	}
	if got, want := export(cachedReg), export(lookedUpReg); got != want {
		t.Errorf("exported with cached series:\n%s\nwant (looked up per request):\n%s", got, want)
	}
}
