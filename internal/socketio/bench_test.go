package socketio_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/skiffhq/skiff/internal/socketio"
)

// BenchmarkBroadcast fans one pre-encoded packet out to 1,000 sockets (half
// EIO=3, half EIO=4) over loopback. "enqueue" measures the sender's cost
// (Send on every socket); "delivered" waits until every client has read the
// packet, so it includes the writers, the network and the in-process clients.
func BenchmarkBroadcast(b *testing.B) {
	const n = 1000
	var (
		mu    sync.Mutex
		socks []*socketio.Socket
		ready = make(chan struct{})
	)
	srv := socketio.NewServer(socketio.Options{
		PingInterval: time.Hour,
		OnConnect: func(s *socketio.Socket) {
			mu.Lock()
			defer mu.Unlock()
			if socks = append(socks, s); len(socks) == n {
				close(ready)
			}
		},
	})
	hs := httptest.NewServer(srv)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Close(ctx)
		hs.Close()
	})
	url := strings.Replace(hs.URL, "http", "ws", 1) + "/socket.io/"
	var got atomic.Int64
	for i := range n {
		eio := 3 + i%2
		c, _, err := websocket.Dial(context.Background(), fmt.Sprintf("%s?EIO=%d&transport=websocket", url, eio), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.CloseNow() })
		if eio == 4 {
			c.Write(context.Background(), websocket.MessageText, []byte("40"))
		}
		go func() {
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					return
				}
				got.Add(1)
			}
		}()
	}
	<-ready
	waitFor := func(want int64) {
		for got.Load() < want {
			time.Sleep(50 * time.Microsecond)
		}
	}
	waitFor(int64(n + n/2)) // open packets + the EIO=3 implicit "40"s
	got.Store(0)

	p, err := socketio.EncodeEventRaw("user", []byte(`{"verb":"updated","id":47,"data":{"name":"Applejack","updatedAt":1485476060873}}`))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("enqueue", func(b *testing.B) {
		b.ReportAllocs()
		sent, i := got.Load(), 0
		for b.Loop() {
			for _, s := range socks {
				if err := s.Send(p); err != nil {
					b.Fatal(err)
				}
			}
			sent += n
			if i++; i%64 == 0 { // stay below SendQueue
				b.StopTimer()
				waitFor(sent)
				b.StartTimer()
			}
		}
		b.StopTimer()
		waitFor(sent)
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "sends/s")
	})
	b.Run("delivered", func(b *testing.B) {
		b.ReportAllocs()
		sent := got.Load()
		for b.Loop() {
			for _, s := range socks {
				if err := s.Send(p); err != nil {
					b.Fatal(err)
				}
			}
			sent += n
			waitFor(sent)
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "deliveries/s")
	})
}

// BenchmarkIdleSocketMemory reports the Go heap and stack held per idle
// server socket. The clients run in a child process (this test binary running
// TestHelperIdleClients) so that their memory is not counted. Kernel socket
// buffers are not included. Run with -benchtime=1x.
func BenchmarkIdleSocketMemory(b *testing.B) {
	const n = 5000
	for b.Loop() {
		srv := socketio.NewServer(socketio.Options{PingInterval: time.Hour})
		hs := httptest.NewServer(srv)
		before := memInUse()

		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperIdleClients$", "-test.v")
		cmd.Env = append(os.Environ(),
			"SOCKETIO_HELPER_URL="+strings.Replace(hs.URL, "http", "ws", 1)+"/socket.io/",
			"SOCKETIO_HELPER_N="+strconv.Itoa(n))
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() && sc.Text() != "ready" {
		}
		for srv.Count() < n {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // let the last handshakes settle
		after := memInUse()
		b.ReportMetric(float64(after-before)/n, "bytes/socket")

		stdin.Close()
		cmd.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		srv.Close(ctx)
		cancel()
		hs.Close()
	}
}

func memInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// TestHelperIdleClients is the child process of BenchmarkIdleSocketMemory;
// it skips unless started by it.
func TestHelperIdleClients(t *testing.T) {
	url := os.Getenv("SOCKETIO_HELPER_URL")
	if url == "" {
		t.Skip("helper process for BenchmarkIdleSocketMemory")
	}
	n, _ := strconv.Atoi(os.Getenv("SOCKETIO_HELPER_N"))
	for range n {
		c, _, err := websocket.Dial(context.Background(), url+"?EIO=3&transport=websocket", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		go func() {
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					return
				}
			}
		}()
	}
	fmt.Println("ready")
	os.Stdin.Read(make([]byte, 1)) // until the parent closes stdin
}
