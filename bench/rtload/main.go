// Command rtload is Skiff's realtime load client. It opens many socket.io
// connections (WebSocket, Engine.IO v4 / Socket.IO v5, as socket.io-client 4
// with the sails.io.js SDK query) that each watch a model with a virtual
// `get`, while creators POST records of that model over HTTP, and reports
// what the watchers received. It runs as its own process so that its memory
// and CPU are not the server's; bench/realtime.sh drives it.
//
// Modes:
//
//	throughput  creates as fast as the server answers (-creators at once)
//	            or at -rate per second; reports created notifications
//	            delivered per second.
//	latency     creates at -rate per second; reports p50/p99/max latency
//	            of each notification (see below).
//	idle        connects -watchers sockets that watch and then sit idle;
//	            reports the server's RSS growth per socket (-pid).
//	memory      -creates records created as fast as the server answers;
//	            reports the server's RSS once all were delivered and
//	            -settle passed, and its peak RSS (-pid).
//
// With -pid, the load modes also report the server's CPU time (user +
// system, from /proc/PID/stat) from the start of the measured window until
// every notification arrived, divided by the notifications delivered in
// that span: CPU µs per delivery, which does not depend on what else runs
// on the machine, and the server's write system calls (/proc/PID/io syscw)
// per delivery: below 1 when notifications share writes. They report
// rtload's own CPU use too.
//
// Latency is measured twice for each notification a watcher reads, both
// on this machine's clocks:
//
//	send→receipt       from just before the creator wrote the POST to just
//	                   after the watcher's read returned the frame, on the
//	                   load client's monotonic clock (the send time travels
//	                   in the record's name). It includes the whole create
//	                   request (parse, insert, commit) and the fan-out.
//	createdAt→receipt  from the record's createdAt (server wall clock, ms,
//	                   set just before the INSERT) to the receipt (load
//	                   client wall clock, same machine). Truncation to the
//	                   ms makes it up to 1 ms long.
//
// Both are upper bounds of commit→receipt: the commit happens after either
// start point.
//
// Every phase is bounded in time; the command exits non-zero when sockets
// fail to connect or watch.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type config struct {
	url      string
	createTo string // where creates go; url when empty (another instance of the app)
	mode     string
	model    string
	watchers int
	rate     float64
	creators int
	duration time.Duration
	warmup   time.Duration
	drain    time.Duration
	settle   time.Duration
	dialers  int
	pid      int
	noWatch  bool
	creates  int64
}

func main() {
	var c config
	flag.StringVar(&c.url, "url", "http://127.0.0.1:18437", "Skiff base URL (loopback)")
	flag.StringVar(&c.createTo, "create-url", "", "base URL the creates go to (another instance, linked by a bus); -url when empty")
	flag.StringVar(&c.mode, "mode", "throughput", "throughput, latency or idle")
	flag.StringVar(&c.model, "model", "product", "model to watch and create (needs name and a unique sku)")
	flag.IntVar(&c.watchers, "watchers", 1000, "sockets watching the model")
	flag.Float64Var(&c.rate, "rate", 0, "creates per second; 0: as fast as the server answers")
	flag.IntVar(&c.creators, "creators", 2, "concurrent creators when -rate is 0")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "measured creation time")
	flag.DurationVar(&c.warmup, "warmup", time.Second, "creation time before measuring")
	flag.DurationVar(&c.drain, "drain", 10*time.Second, "longest wait for the last notifications")
	flag.DurationVar(&c.settle, "settle", 3*time.Second, "idle, memory: wait before reading the server's RSS")
	flag.IntVar(&c.dialers, "dialers", 32, "sockets connecting at once")
	flag.IntVar(&c.pid, "pid", 0, "idle: the server's process id (its /proc/PID/status VmRSS is read)")
	flag.BoolVar(&c.noWatch, "nowatch", false, "idle: connect only, do not watch")
	flag.Int64Var(&c.creates, "creates", 20000, "memory: records to create")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "rtload:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.createTo == "" {
		c.createTo = c.url
	}
	for _, u := range []string{c.url, c.createTo} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") && !strings.HasPrefix(u, "http://localhost:") {
			return fmt.Errorf("-url %s: loopback only", u)
		}
	}
	switch c.mode {
	case "throughput", "latency":
		if c.mode == "latency" && c.rate <= 0 {
			return errors.New("latency mode needs -rate")
		}
		return runLoad(c)
	case "memory":
		if c.pid <= 0 {
			return errors.New("memory mode needs -pid of the server")
		}
		c.rate, c.warmup, c.duration = 0, 0, 10*time.Minute
		return runLoad(c)
	case "idle":
		return runIdle(c)
	}
	return fmt.Errorf("unknown -mode %q", c.mode)
}

// base is the origin of the load client's monotonic clock: send times travel
// as nanoseconds since base.
var base = time.Now()

// watcher is one watching socket. Only its own goroutine touches it, except
// the atomic counters.
type watcher struct {
	conn     *wsConn
	received atomic.Int64 // created notifications of this run
	failed   atomic.Bool  // the connection ended before we closed it
	closed   atomic.Bool  // we closed it
	// Latency samples (latency mode), in µs; read after the watcher stopped.
	sendLat, createdLat []int32
	sentAt              []int64 // the send time of each sendLat sample: which create it is
}

var (
	createdPrefix = []byte(`42["`)
	createdVerb   = []byte(`"verb":"created"`)
	nameKey       = []byte(`"name":"rt-`)
	createdAtKey  = []byte(`"createdAt":`)
)

// connect dials, joins "/" and watches the model with a virtual get, as
// sails.io.js's io.socket.get('/product') does.
func connect(ctx context.Context, c config) (*watcher, error) {
	u := c.url +
		"/socket.io/?__sails_io_sdk_version=1.2.1&__sails_io_sdk_platform=node&__sails_io_sdk_language=javascript&EIO=4&transport=websocket"
	conn, err := dialWS(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	w := &watcher{conn: conn}
	fail := func(err error) (*watcher, error) { conn.close(); return nil, err }
	if dl, ok := ctx.Deadline(); ok {
		conn.c.SetDeadline(dl) // the socket.io handshake and the watch, too
		defer conn.c.SetDeadline(time.Time{})
	}
	if b, err := conn.read(); err != nil || len(b) == 0 || b[0] != '0' {
		return fail(fmt.Errorf("open packet %q: %v", b, err))
	}
	if err := conn.writeText([]byte("40")); err != nil {
		return fail(fmt.Errorf("connect: %w", err))
	}
	if b, err := conn.read(); err != nil || !bytes.HasPrefix(b, []byte("40")) {
		return fail(fmt.Errorf("connect packet %q: %v", b, err))
	}
	if c.noWatch {
		return w, nil
	}
	get := fmt.Sprintf(`420["get",{"method":"get","url":"/%s?limit=1","data":{},"headers":{}}]`, c.model)
	if err := conn.writeText([]byte(get)); err != nil {
		return fail(fmt.Errorf("watch: %w", err))
	}
	for {
		b, err := conn.read()
		if err != nil {
			return fail(fmt.Errorf("watch ack: %w", err))
		}
		if bytes.HasPrefix(b, []byte("430[")) {
			if !bytes.Contains(b, []byte(`"statusCode":200`)) {
				return fail(fmt.Errorf("watch: %s", b))
			}
			return w, nil
		}
		if err := w.control(b); err != nil {
			return fail(err)
		}
	}
}

// control answers Engine.IO pings and reports a server disconnect.
func (w *watcher) control(b []byte) error {
	switch {
	case len(b) == 1 && b[0] == '2':
		return w.conn.writeText([]byte("3"))
	case bytes.HasPrefix(b, []byte("41")), len(b) > 0 && b[0] == '1':
		return errors.New("server disconnected the socket")
	}
	return nil
}

// listen counts created notifications until the connection is closed. With
// latencyFrom >= 0 it also records the latency of notifications of records
// sent after that offset of the monotonic clock.
func (w *watcher) listen(latencyFrom time.Duration) {
	for {
		b, err := w.conn.read()
		if err != nil {
			if !w.closed.Load() {
				w.failed.Store(true)
			}
			return
		}
		if !bytes.HasPrefix(b, createdPrefix) || !bytes.Contains(b, createdVerb) {
			if err := w.control(b); err != nil {
				w.failed.Store(true)
				return
			}
			continue
		}
		w.received.Add(1)
		if latencyFrom < 0 {
			continue
		}
		now, wall := time.Since(base), time.Now()
		sent, ok1 := numberAfter(b, nameKey)
		createdAt, ok2 := numberAfter(b, createdAtKey)
		if !ok1 || !ok2 || time.Duration(sent) < latencyFrom {
			continue
		}
		w.sendLat = append(w.sendLat, int32((now-time.Duration(sent))/time.Microsecond))
		w.createdLat = append(w.createdLat, int32(wall.UnixMicro()-createdAt*1000))
		w.sentAt = append(w.sentAt, sent)
	}
}

// numberAfter parses the non-negative integer right after key in b.
func numberAfter(b, key []byte) (int64, bool) {
	i := bytes.Index(b, key)
	if i < 0 {
		return 0, false
	}
	b = b[i+len(key):]
	var n int64
	j := 0
	for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
		n = n*10 + int64(b[j]-'0')
	}
	return n, j > 0
}

// connectAll opens n watchers, c.dialers at a time, within a minute plus a
// little per socket.
func connectAll(c config, n int) ([]*watcher, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+time.Duration(n)*5*time.Millisecond)
	defer cancel()
	ws := make([]*watcher, n)
	var (
		next     atomic.Int64
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	for range min(c.dialers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				w, err := connect(ctx, c)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("socket %d: %w", i, err); cancel() })
					return
				}
				ws[i] = w
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		closeAll(ws)
		return nil, firstErr
	}
	return ws, nil
}

func closeAll(ws []*watcher) {
	for _, w := range ws {
		if w != nil {
			w.closed.Store(true)
			w.conn.close()
		}
	}
}

func sumReceived(ws []*watcher) int64 {
	var n int64
	for _, w := range ws {
		n += w.received.Load()
	}
	return n
}

// creator posts records of the model over HTTP.
type creator struct {
	client *http.Client
	url    string
	run    string
	seq    atomic.Int64
	ok     atomic.Int64
	errs   atomic.Int64
}

// create posts one record. ctx is not the request's: a request under way
// when the run ends completes, so that every committed create is counted.
func (cr *creator) create() {
	ctx := context.Background() // the client's Timeout bounds it
	i := cr.seq.Add(1)
	sent := time.Since(base)
	body := fmt.Sprintf(`{"name":"rt-%d","sku":"rt-%s-%d","price":1,"stock":1}`, int64(sent), cr.run, i)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cr.url, strings.NewReader(body))
	if err != nil {
		cr.errs.Add(1)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := cr.client.Do(req)
	if err != nil {
		cr.errs.Add(1)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		cr.errs.Add(1)
		return
	}
	cr.ok.Add(1)
}

// runLoad is the throughput and latency modes.
func runLoad(c config) error {
	t0 := time.Now()
	ws, err := connectAll(c, c.watchers)
	if err != nil {
		return err
	}
	defer closeAll(ws)
	fmt.Fprintf(os.Stderr, "rtload: %d watchers connected and watching in %v\n", len(ws), time.Since(t0).Round(time.Millisecond))

	latencyFrom := time.Since(base) + c.warmup
	var listeners sync.WaitGroup
	for _, w := range ws {
		listeners.Go(func() { w.listen(latencyFrom) })
	}

	conns := c.creators
	if c.rate > 0 {
		conns = max(4, int(c.rate/50)) // enough for a fixed rate at a few ms per create
	}
	cr := &creator{
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}, Timeout: 10 * time.Second},
		url:    c.createTo + "/" + c.model,
		run:    strconv.FormatInt(time.Now().UnixNano(), 36),
	}
	ctx, stop := context.WithTimeout(context.Background(), c.warmup+c.duration)
	defer stop()
	var creators sync.WaitGroup
	if c.rate > 0 {
		// Open loop: create i is due at i/rate, whatever the answers' pace,
		// on a bounded number of concurrent requests.
		sem := make(chan struct{}, conns)
		creators.Go(func() {
			interval := time.Duration(float64(time.Second) / c.rate)
			start := time.Now()
			for i := 0; ; i++ {
				due := start.Add(time.Duration(i) * interval)
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Until(due)):
				}
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				creators.Go(func() { defer func() { <-sem }(); cr.create() })
			}
		})
	} else {
		for range conns {
			creators.Go(func() {
				for ctx.Err() == nil && (c.mode != "memory" || cr.seq.Load() < c.creates) {
					cr.create()
				}
			})
		}
	}

	time.Sleep(c.warmup)
	r0, c0, m0 := sumReceived(ws), cr.ok.Load(), time.Now()
	cpu0, err := cpuTimes(c.pid)
	if err != nil {
		return err
	}
	if c.mode == "memory" {
		creators.Wait()
	} else {
		time.Sleep(c.duration)
	}
	r1, c1, m1 := sumReceived(ws), cr.ok.Load(), time.Now()
	creators.Wait()

	// Drain: wait for every notification of every create, or c.drain.
	live := 0
	for _, w := range ws {
		if !w.failed.Load() {
			live++
		}
	}
	expected := cr.ok.Load() * int64(len(ws))
	drainEnd := time.Now().Add(c.drain)
	for sumReceived(ws) < expected && time.Now().Before(drainEnd) {
		time.Sleep(20 * time.Millisecond)
	}
	received := sumReceived(ws)
	cpu1, err := cpuTimes(c.pid)
	if err != nil {
		return err
	}
	var rssAfter, rssPeak int64
	if c.pid > 0 {
		if c.mode == "memory" {
			time.Sleep(c.settle) // as idle mode: the runtime returns a burst's garbage to the OS in the background
		}
		if rssAfter, err = rss(c.pid); err != nil {
			return err
		}
		if rssPeak, err = procStatus(c.pid, "VmHWM:"); err != nil {
			return err
		}
	}
	closeAll(ws)
	listeners.Wait()
	dropped := 0
	for _, w := range ws {
		if w.failed.Load() {
			dropped++
		}
	}

	window := m1.Sub(m0).Seconds()
	res := []kv{
		{"mode", c.mode}, {"watchers", len(ws)},
		{"creates_per_s", fmt.Sprintf("%.0f", float64(c1-c0)/window)},
		{"delivered_per_s", fmt.Sprintf("%.0f", float64(r1-r0)/window)},
		{"creates", cr.ok.Load()}, {"create_errors", cr.errs.Load()},
		{"delivered", received}, {"expected", expected}, {"dropped_sockets", dropped},
	}
	if c.pid > 0 {
		// From m0 until the drain ended, the server delivered received-r0.
		res = append(res,
			kv{"server_cpu_s", fmt.Sprintf("%.2f", (cpu1.server - cpu0.server).Seconds())},
			kv{"cpu_us_per_delivery", fmt.Sprintf("%.2f", float64((cpu1.server-cpu0.server)/time.Microsecond)/float64(max(received-r0, 1)))},
			kv{"writes_per_delivery", fmt.Sprintf("%.3f", float64(cpu1.writes-cpu0.writes)/float64(max(received-r0, 1)))},
			kv{"rtload_cpu_s", fmt.Sprintf("%.2f", (cpu1.self - cpu0.self).Seconds())},
			kv{"span_s", fmt.Sprintf("%.2f", cpu1.at.Sub(cpu0.at).Seconds())},
			kv{"rss_after_kb", rssAfter}, kv{"rss_peak_kb", rssPeak})
	}
	{
		var send, created []int32
		for _, w := range ws {
			send = append(send, w.sendLat...)
			created = append(created, w.createdLat...)
		}
		res = append(res, kv{"samples", len(send)})
		res = append(res, fanOut(ws)...)
		for _, l := range []struct {
			name string
			v    []int32
		}{{"send", send}, {"createdat", created}} {
			slices.Sort(l.v)
			for _, q := range []struct {
				name string
				q    float64
			}{{"p50", 0.50}, {"p99", 0.99}, {"max", 1}} {
				res = append(res, kv{l.name + "_" + q.name + "_ms", fmt.Sprintf("%.2f", quantile(l.v, q.q)/1000)})
			}
		}
	}
	printResult(res)
	if dropped > 0 || received < expected {
		fmt.Fprintf(os.Stderr, "rtload: %d sockets dropped, %d of %d notifications missing\n", dropped, expected-received, expected)
	}
	return nil
}

// fanOut reports, over the creates, the p50 and p99 of the first watcher's
// send→receipt (the create request and the fan-out's start) and of the
// fan-out's spread (last receipt − first), which tell a slow create from a
// slow fan-out.
func fanOut(ws []*watcher) []kv {
	type span struct{ first, last int32 }
	creates := map[int64]*span{}
	for _, w := range ws {
		for i, sent := range w.sentAt {
			l := w.sendLat[i]
			s := creates[sent]
			if s == nil {
				creates[sent] = &span{l, l}
				continue
			}
			s.first, s.last = min(s.first, l), max(s.last, l)
		}
	}
	var first, spread []int32
	for _, s := range creates {
		first = append(first, s.first)
		spread = append(spread, s.last-s.first)
	}
	slices.Sort(first)
	slices.Sort(spread)
	ms := func(v []int32, q float64) string { return fmt.Sprintf("%.2f", quantile(v, q)/1000) }
	return []kv{
		{"first_p50_ms", ms(first, 0.5)}, {"first_p99_ms", ms(first, 0.99)},
		{"spread_p50_ms", ms(spread, 0.5)}, {"spread_p99_ms", ms(spread, 0.99)},
	}
}

func quantile(v []int32, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	i := int(q * float64(len(v)-1))
	return float64(v[i])
}

// runIdle connects c.watchers watching sockets and reports the server's RSS
// growth per socket.
func runIdle(c config) error {
	if c.pid <= 0 {
		return errors.New("idle mode needs -pid of the server")
	}
	before, err := rss(c.pid)
	if err != nil {
		return err
	}
	t0 := time.Now()
	ws, err := connectAll(c, c.watchers)
	if err != nil {
		return err
	}
	defer closeAll(ws)
	connected := time.Since(t0)
	var listeners sync.WaitGroup
	for _, w := range ws {
		listeners.Go(func() { w.listen(-1) })
	}
	time.Sleep(c.settle)
	after, err := rss(c.pid)
	if err != nil {
		return err
	}
	closeAll(ws)
	listeners.Wait()
	printResult([]kv{
		{"mode", "idle"}, {"sockets", len(ws)}, {"connect_s", fmt.Sprintf("%.1f", connected.Seconds())},
		{"rss_before_kb", before}, {"rss_after_kb", after},
		{"kb_per_socket", fmt.Sprintf("%.1f", float64(after-before)/float64(len(ws)))},
	})
	return nil
}

// rss reads VmRSS (KiB) of process pid.
func rss(pid int) (int64, error) { return procStatus(pid, "VmRSS:") }

// procStatus reads a size (KiB) from /proc/PID/status, such as VmRSS or
// VmHWM (the peak RSS).
func procStatus(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("server %s %w", key, err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("server RSS: no %s in /proc/%d/status", key, pid)
}

type kv struct {
	k string
	v any
}

// printResult prints one line of key=value pairs, which bench/realtime.sh
// reads.
func printResult(res []kv) {
	parts := make([]string, len(res))
	for i, p := range res {
		parts[i] = fmt.Sprintf("%s=%v", p.k, p.v)
	}
	fmt.Println("RESULT " + strings.Join(parts, " "))
}

// cpu is the CPU time used so far by the server (-pid; 0 without it) and
// by rtload, at a moment.
type cpu struct {
	server, self time.Duration
	at           time.Time
	writes       int64 // the server's write system calls (syscw)
}

func cpuTimes(pid int) (cpu, error) {
	c := cpu{at: time.Now()}
	var err error
	if c.self, err = procCPU("self"); err != nil {
		return c, err
	}
	if pid > 0 {
		if c.server, err = procCPU(strconv.Itoa(pid)); err != nil {
			return c, err
		}
		c.writes, err = procWrites(pid)
	}
	return c, err
}

// procCPU reads the user and system time of a process from
// /proc/<pid>/stat, in clock ticks (USER_HZ, 100 on Linux).
func procCPU(pid string) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, fmt.Errorf("process CPU: %w", err)
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("process CPU: malformed /proc/%s/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 { // state is field 3; utime and stime are 14 and 15
		return 0, fmt.Errorf("process CPU: short /proc/%s/stat", pid)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("process CPU: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100), nil
}

// procWrites reads the count of write system calls (write, writev, …) of
// process pid from /proc/PID/io.
func procWrites(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, fmt.Errorf("process writes: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "syscw:"); ok {
			return strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
		}
	}
	return 0, fmt.Errorf("process writes: no syscw in /proc/%d/io", pid)
}
