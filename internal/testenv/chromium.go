package testenv

import (
	"fmt"
	"os"
	"testing"
)

// Chromium is the browser for browser tests: ChromiumEnv names it, else
// ChromiumDefault (Debian's chromium package).
const (
	ChromiumEnv     = "SKIFF_TEST_CHROMIUM"
	ChromiumDefault = "/usr/bin/chromium"
)

// Chromium returns the path of the Chromium binary for browser tests. When
// there is none it skips t, or fails it under CI=true (.ci/run installs the
// chromium package).
func Chromium(t testing.TB) string {
	t.Helper()
	path := getenv(ChromiumEnv, ChromiumDefault)
	fi, err := os.Stat(path)
	if err == nil && (fi.IsDir() || fi.Mode().Perm()&0o111 == 0) {
		err = fmt.Errorf("%s is not an executable file", path)
	}
	if err != nil {
		unavailable(t, "Chromium (apt-get install chromium chromium-driver)", ChromiumEnv, err)
	}
	return path
}
