package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLogWriterKeepsEveryLineInOrder: lines written at once by many
// goroutines all come out whole, each writer's in its order, and Flush
// waits for them.
func TestLogWriterKeepsEveryLineInOrder(t *testing.T) {
	var out bytes.Buffer
	l := newLogWriter(&out)
	const writers, lines = 8, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(l, "w%d %d\n", w, i)
			}
		})
	}
	wg.Wait()
	l.Flush()
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines out, want %d", len(got), writers*lines)
	}
	for _, line := range got {
		var w, i int
		if _, err := fmt.Sscanf(line, "w%d %d", &w, &i); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d came after %d", w, i, next[w]-1)
		}
		next[w]++
	}
}

// countingWriter counts the writes made to it.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	bytes.Buffer
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.Buffer.Write(p)
}

// TestLogWriterCoalescesATrickle: lines 0.1 ms apart go out a linger's
// worth at a time, not one write each. The bound holds unless the 5 ms of
// lines took 25 lingers.
func TestLogWriterCoalescesATrickle(t *testing.T) {
	var out countingWriter
	l := newLogWriter(&out)
	const lines = 50
	for i := range lines {
		// A busy wait: time.Sleep of 0.1 ms sleeps about a millisecond.
		for start := time.Now(); time.Since(start) < 100*time.Microsecond; {
		}
		fmt.Fprintf(l, "line %d\n", i)
	}
	l.Flush()
	out.mu.Lock()
	defer out.mu.Unlock()
	if n := strings.Count(out.String(), "\n"); n != lines {
		t.Fatalf("%d lines out, want %d", n, lines)
	}
	if out.writes > 25 {
		t.Fatalf("%d writes for %d lines 0.1 ms apart, want at most 25", out.writes, lines)
	}
}

// TestLogWriterBoundsWhatWaits: past maxPendingLog a write goes out itself.
func TestLogWriterBoundsWhatWaits(t *testing.T) {
	var out bytes.Buffer
	l := newLogWriter(&out)
	big := strings.Repeat("x", maxPendingLog) + "\n"
	fmt.Fprint(l, "first\n")
	fmt.Fprint(l, big)
	l.Flush()
	if got := out.String(); got != "first\n"+big {
		t.Fatalf("output: %d bytes starting %q, want first then the big line", len(got), got[:min(len(got), 10)])
	}
}

// TestLogWriterCloseWritesWhatIsQueued: Close drains the queue and ends the
// writer; a write after it goes straight out.
func TestLogWriterCloseWritesWhatIsQueued(t *testing.T) {
	var out bytes.Buffer
	l := newLogWriter(&out)
	for i := range 100 {
		fmt.Fprintf(l, "%d\n", i)
	}
	l.Close()
	fmt.Fprint(l, "after\n")
	l.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 101 || lines[99] != "99" || lines[100] != "after" {
		t.Fatalf("output: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// BenchmarkLogWriterLoneLine: a line at a time, each out before the next,
// as on a server that is not busy.
func BenchmarkLogWriterLoneLine(b *testing.B) {
	l := newLogWriter(io.Discard)
	line := []byte("time=2026-11-26T16:00:00Z level=INFO msg=request method=GET path=/pet/42 status=200\n")
	b.ReportAllocs()
	for b.Loop() {
		_, _ = l.Write(line)
		l.Flush()
	}
}
