package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version overrides the build info's module version when set at build time
// with -ldflags "-X main.version=...".
var version = ""

// buildInfo is what `skiff version` reports, read from the binary's build
// information: `go install …/cmd/skiff@vX` records vX, and `go build` in
// a git checkout a pseudo-version and the VCS revision.
type buildInfo struct {
	Version   string // module version, "(devel)" when unknown
	Revision  string // VCS revision, "" when not built from a checkout
	Time      string // VCS commit time
	Modified  bool   // the checkout had uncommitted changes
	GoVersion string
}

func readBuildInfo() buildInfo {
	bi := buildInfo{Version: "(devel)"}
	info, ok := debug.ReadBuildInfo()
	if ok {
		bi.GoVersion = info.GoVersion
		if info.Main.Version != "" {
			bi.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Revision = s.Value
			case "vcs.time":
				bi.Time = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		bi.Version = version
	}
	return bi
}

// versionString is the short version for the startup line.
func versionString() string { return readBuildInfo().Version }

// printVersion writes `skiff version`'s answer.
func printVersion(w io.Writer) {
	bi := readBuildInfo()
	fmt.Fprintln(w, "skiff", bi.Version)
	if bi.Revision != "" {
		dirty := ""
		if bi.Modified {
			dirty = " (modified)"
		}
		fmt.Fprintf(w, "revision: %s%s\n", bi.Revision, dirty)
	}
	if bi.Time != "" {
		fmt.Fprintf(w, "commit time: %s\n", bi.Time)
	}
	if bi.GoVersion != "" {
		fmt.Fprintf(w, "go: %s\n", bi.GoVersion)
	}
}
