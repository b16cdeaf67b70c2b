// Command rtfloor is the physical floor of bench/realtime.sh's steady mode:
// the fan-out of one small message to many loopback TCP sockets, with
// nothing of Skiff in it (no HTTP create, no database, no WebSocket or
// socket.io framing, no hub). One process serves (-serve): it accepts
// -watchers connections and, -rate times a second, writes -size bytes to
// each from GOMAXPROCS writer goroutines, each connection one write(2), as
// Skiff's flushers do when nothing coalesces. The other process connects
// and reads with one goroutine per connection, as bench/rtload does, and
// reports the latency from the fan-out's start (the server's wall clock,
// carried in the message) to each read (this machine's wall clock), and
// each process's CPU per delivery.
//
// On the same cores, what is left between rtload's send→receipt and
// rtfloor's latency is Skiff's: the create request and the Go side of its
// fan-out; what rtfloor measures itself is the kernel's loopback write and
// read and the wake-ups of the reading process, which no server can avoid
// with one write per socket.
//
//	rtfloor -serve -addr 127.0.0.1:18436 -watchers 1000 -rate 20 -duration 10s &
//	rtfloor -addr 127.0.0.1:18436 -watchers 1000 -warmup 1s -pid $!
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	serve := flag.Bool("serve", false, "serve the fan-out (else: connect and read)")
	addr := flag.String("addr", "127.0.0.1:18436", "loopback address")
	watchers := flag.Int("watchers", 1000, "connections")
	rate := flag.Float64("rate", 20, "serve: fan-outs per second")
	duration := flag.Duration("duration", 10*time.Second, "serve: how long to fan out after the warm-up")
	size := flag.Int("size", 200, "message bytes (at least 8)")
	warmup := flag.Duration("warmup", time.Second, "fan-outs of this first span are not measured")
	pid := flag.Int("pid", 0, "read: the server's process id, for its CPU per delivery")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.0.0.1:") {
		fmt.Fprintln(os.Stderr, "rtfloor: loopback only")
		os.Exit(2)
	}
	var err error
	if *serve {
		err = runServer(*addr, *watchers, *rate, *warmup+*duration, max(*size, 8))
	} else {
		err = runReader(*addr, *watchers, max(*size, 8), *warmup, *pid)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtfloor:", err)
		os.Exit(1)
	}
}

// runServer accepts n connections, then fans a message out to all of them
// rate times a second for d, and closes them.
func runServer(addr string, n int, rate float64, d time.Duration, size int) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	conns := make([]net.Conn, 0, n)
	for len(conns) < n {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		conns = append(conns, c)
	}
	msg := make([]byte, size)
	end := time.Now().Add(d)
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	writers := runtime.GOMAXPROCS(0)
	for now := range tick.C {
		if now.After(end) {
			break
		}
		binary.LittleEndian.PutUint64(msg, uint64(time.Now().UnixNano()))
		// The writers share the connections as Skiff's flushers share a
		// fan-out's sockets: whoever is free takes the next.
		next := make(chan net.Conn, len(conns))
		for _, c := range conns {
			next <- c
		}
		close(next)
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for c := range next {
					if _, err := c.Write(msg); err != nil {
						fmt.Fprintln(os.Stderr, "rtfloor: write:", err)
					}
				}
			})
		}
		wg.Wait()
	}
	for _, c := range conns {
		c.Close()
	}
	return nil
}

// runReader connects n readers, reads until the server closes them, and
// prints a RESULT line with the field names bench/rtload uses.
func runReader(addr string, n, size int, warmup time.Duration, pid int) error {
	type reader struct {
		lat  []int32 // µs
		sent []int64 // which fan-out
	}
	rs := make([]reader, n)
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := dialRetry(addr)
		if err != nil {
			return err
		}
		conns[i] = c
	}
	from := time.Now().Add(warmup).UnixNano()
	var cpu0, cpu1 cpuTimes
	var once, end sync.Once
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			defer c.Close()
			br := bufio.NewReaderSize(c, 4<<10)
			buf := make([]byte, size)
			r := &rs[i]
			for {
				if _, err := io.ReadFull(br, buf); err != nil {
					// The server closes the connections after its last
					// fan-out and then exits: read its CPU while it lives.
					end.Do(func() { cpu1 = readCPU(pid) })
					return
				}
				now := time.Now().UnixNano()
				sent := int64(binary.LittleEndian.Uint64(buf))
				if sent < from {
					continue
				}
				once.Do(func() { cpu0 = readCPU(pid) })
				r.lat = append(r.lat, int32((now-sent)/1000))
				r.sent = append(r.sent, sent)
			}
		})
	}
	wg.Wait()
	var all []int32
	spans := map[int64][2]int32{}
	for _, r := range rs {
		all = append(all, r.lat...)
		for j, s := range r.sent {
			l := r.lat[j]
			sp, ok := spans[s]
			if !ok {
				sp = [2]int32{l, l}
			}
			spans[s] = [2]int32{min(sp[0], l), max(sp[1], l)}
		}
	}
	if len(all) == 0 {
		return errors.New("nothing measured: is -duration longer than -warmup?")
	}
	var first, spread []int32
	for _, sp := range spans {
		first = append(first, sp[0])
		spread = append(spread, sp[1]-sp[0])
	}
	slices.Sort(all)
	slices.Sort(first)
	slices.Sort(spread)
	ms := func(v []int32, q float64) string {
		return strconv.FormatFloat(float64(v[int(q*float64(len(v)-1))])/1000, 'f', 2, 64)
	}
	d := float64(len(all))
	fields := []string{
		"mode=floor", "watchers=" + strconv.Itoa(n), "fanouts=" + strconv.Itoa(len(spans)),
		"delivered=" + strconv.Itoa(len(all)),
		"send_p50_ms=" + ms(all, .5), "send_p99_ms=" + ms(all, .99), "send_max_ms=" + ms(all, 1),
		"first_p50_ms=" + ms(first, .5), "first_p99_ms=" + ms(first, .99),
		"spread_p50_ms=" + ms(spread, .5), "spread_p99_ms=" + ms(spread, .99),
		fmt.Sprintf("cpu_us_per_delivery=%.2f", float64((cpu1.server-cpu0.server)/time.Microsecond)/d),
		fmt.Sprintf("rtload_cpu_us_per_delivery=%.2f", float64((cpu1.self-cpu0.self)/time.Microsecond)/d),
	}
	fmt.Println("RESULT " + strings.Join(fields, " "))
	return nil
}

// dialRetry dials addr, waiting up to 5 s for the server to listen.
func dialRetry(addr string) (net.Conn, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cpuTimes is the CPU time (user + system) used so far by the server and
// by this process.
type cpuTimes struct{ server, self time.Duration }

func readCPU(pid int) cpuTimes {
	var c cpuTimes
	c.self = procCPU("self")
	if pid > 0 {
		c.server = procCPU(strconv.Itoa(pid))
	}
	return c
}

// procCPU reads utime + stime of a process from /proc/PID/stat (clock
// ticks of 10 ms); 0 when it cannot.
func procCPU(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, _ := strconv.ParseInt(s, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
