// Package metrics exposes a Skiff app's work to Prometheus: requests by
// transport, route pattern, method and status with a latency histogram,
// connected sockets, socket messages sent and slow-consumer disconnects,
// and the datastores' connection pools. It is optional: an app that does
// not import it does not link client_golang's registry into its handler
// path. The skiff command serves it on the admin listener (--admin).
//
//	reg := prometheus.NewRegistry()
//	m := metrics.New(reg)
//	opts.Observer = m
//	app, _ := skiff.New(ctx, opts)
//	m.Watch(app)
//	http.Handle("/metrics", metrics.Handler(reg))
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/realtime"
)

// Collector records requests (it is a skiff.Observer) and, once Watch is
// called, reads an app's gauges at each scrape. It is safe for concurrent
// use.
type Collector struct {
	reg      prometheus.Registerer
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	notices  *prometheus.CounterVec
	// statuses are the status labels, made once rather than per request.
	statuses [600]string
	// observers holds the series of each request label set seen so far
	// (at most maxObservers): looking them up in the vectors hashed the
	// labels and took the vectors' locks twice per request (~1.2 µs).
	mu        sync.RWMutex
	observers map[requestLabels]requestSeries
}

// maxObservers bounds Collector.observers: the method is the client's to
// choose, so the label sets are not bounded by the routes. Past it a
// request's series are looked up in the vectors, as before the cache.
const maxObservers = 4096

type requestLabels struct {
	transport, method, route string
	status                   int
}

type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

var (
	_ skiff.Observer             = (*Collector)(nil)
	_ skiff.NotificationObserver = (*Collector)(nil)
)

// New registers the request metrics on reg and returns their Collector.
// It panics if reg already holds metrics of the same names, as
// prometheus.MustRegister does.
func New(reg prometheus.Registerer) *Collector {
	c := &Collector{
		reg:       reg,
		observers: make(map[requestLabels]requestSeries),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "skiff", Name: "requests_total",
			Help: "Requests answered, by transport (http, socket), route pattern (\"\" when none matched), method and status.",
		}, []string{"transport", "route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "skiff", Name: "request_duration_seconds",
			Help:    "Time to answer a request, by transport, route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"transport", "route", "method"}),
	}
	c.notices = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "skiff", Name: "notifications_total",
		Help: "Model notifications published by the blueprint actions, by model and verb (once each, whatever the number of recipients).",
	}, []string{"model", "verb"})
	for i := 100; i < len(c.statuses); i++ {
		c.statuses[i] = strconv.Itoa(i)
	}
	reg.MustRegister(c.requests, c.duration, c.notices)
	return c
}

// ObserveRequest implements skiff.Observer.
func (c *Collector) ObserveRequest(transport, method, route string, status int, d time.Duration) {
	k := requestLabels{transport, method, route, status}
	c.mu.RLock()
	s, ok := c.observers[k]
	c.mu.RUnlock()
	if !ok {
		s = c.series(k)
	}
	s.requests.Inc()
	s.duration.Observe(d.Seconds())
}

// series returns the series of the requests labelled k from the vectors,
// and keeps them while the cache has room.
func (c *Collector) series(k requestLabels) requestSeries {
	var label string
	if k.status >= 100 && k.status < len(c.statuses) {
		label = c.statuses[k.status]
	} else {
		label = strconv.Itoa(k.status)
	}
	s := requestSeries{
		requests: c.requests.WithLabelValues(k.transport, k.route, k.method, label),
		duration: c.duration.WithLabelValues(k.transport, k.route, k.method),
	}
	c.mu.Lock()
	if len(c.observers) < maxObservers {
		c.observers[k] = s
	}
	c.mu.Unlock()
	return s
}

// ObserveNotification implements skiff.NotificationObserver.
func (c *Collector) ObserveNotification(model, verb string) {
	c.notices.WithLabelValues(model, verb).Inc()
}

// Watch registers the gauges and counters read from app at each scrape:
// sockets connected, messages sent to sockets, slow-consumer disconnects,
// and the connection pool of each datastore that reports one
// (datastore.PoolStater). Call it once, after skiff.New.
func (c *Collector) Watch(app *skiff.App) {
	hub := app.Realtime()
	c.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "skiff", Name: "sockets_connected", Help: "Sockets connected to this instance.",
		}, func() float64 { return float64(hub.Count()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "skiff", Name: "socket_messages_sent_total",
			Help: "Messages (notifications and broadcasts) queued to sockets, one per recipient.",
		}, func() float64 { return float64(hub.Stats().Sent) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "skiff", Name: "socket_slow_disconnects_total",
			Help: "Sockets disconnected because their send queue was full (the message was dropped).",
		}, func() float64 { return float64(hub.Stats().SlowDisconnects) }),
	)
	if hub.BusStats().Configured {
		bus := func(f func(realtime.BusStats) uint64) func() float64 {
			return func() float64 { return float64(f(hub.BusStats())) }
		}
		c.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Namespace: "skiff", Name: "bus_up", Help: "1 when the realtime bus carries messages both ways, else 0.",
			}, func() float64 {
				if hub.BusStats().Up {
					return 1
				}
				return 0
			}),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: "skiff", Name: "bus_published_total", Help: "Messages this instance handed to the realtime bus.",
			}, bus(func(s realtime.BusStats) uint64 { return s.Published })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: "skiff", Name: "bus_received_total", Help: "Messages other instances sent this one over the realtime bus.",
			}, bus(func(s realtime.BusStats) uint64 { return s.Received })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: "skiff", Name: "bus_lost_total", Help: "Messages that could not cross to the other instances (bus down or too slow).",
			}, bus(func(s realtime.BusStats) uint64 { return s.Lost })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: "skiff", Name: "bus_outages_total", Help: "Times the realtime bus was lost or unreachable at start.",
			}, bus(func(s realtime.BusStats) uint64 { return s.Outages })),
		)
	}
	for name, a := range app.DatastoreAdapters() {
		ps, ok := a.(datastore.PoolStater)
		if !ok {
			continue
		}
		labels := prometheus.Labels{"datastore": name}
		stat := func(f func(datastore.PoolStats) int64) func() float64 {
			return func() float64 { return float64(f(ps.PoolStats())) }
		}
		c.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Namespace: "skiff", Name: "datastore_connections_open", ConstLabels: labels,
				Help: "Connections the datastore's pool holds.",
			}, stat(func(s datastore.PoolStats) int64 { return s.Open })),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Namespace: "skiff", Name: "datastore_connections_in_use", ConstLabels: labels,
				Help: "Connections of the datastore's pool in use.",
			}, stat(func(s datastore.PoolStats) int64 { return s.InUse })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: "skiff", Name: "datastore_connection_waits_total", ConstLabels: labels,
				Help: "Times a query waited for a free connection of the datastore's pool.",
			}, stat(func(s datastore.PoolStats) int64 { return s.Waits })),
		)
	}
}

// Handler serves the metrics gathered by g in the Prometheus text format.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}
