package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReleaseStartPages: the executable's code and read-only pages are
// unmapped and come back as they are used; the program goes on running.
func TestReleaseStartPages(t *testing.T) {
	before := exeRss(t)
	if err := releaseStartPages(); err != nil {
		t.Fatal(err)
	}
	after := exeRss(t)
	if after >= before {
		t.Errorf("the executable's resident KiB went from %d to %d; want fewer", before, after)
	}
	if got := strconv.Itoa(42); got != "42" { // code runs from the faulted-back pages
		t.Fatalf("Itoa(42) = %q", got)
	}
}

func TestTraced(t *testing.T) {
	for status, want := range map[string]bool{
		"Name:\tskiff\nTracerPid:\t0\nUid:\t0\n":    false,
		"Name:\tskiff\nTracerPid:\t4242\nUid:\t0\n": true,
		"Name:\tskiff\n": false,
	} {
		if got := traced([]byte(status)); got != want {
			t.Errorf("traced(%q) = %v, want %v", status, got, want)
		}
	}
}

// exeRss sums the resident KiB of the executable's read-only mappings.
func exeRss(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	sum, in := 0, false
	for line := range strings.Lines(string(smaps)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			in = len(f) >= 6 && f[5] == exe && (f[1] == "r-xp" || f[1] == "r--p")
		case in && len(f) >= 2 && f[0] == "Rss:":
			n, _ := strconv.Atoi(f[1])
			sum += n
		}
	}
	return sum
}
