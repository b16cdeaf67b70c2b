package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
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
