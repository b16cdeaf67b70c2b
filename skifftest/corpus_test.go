package skifftest_test

import (
	"path/filepath"
	"testing"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/skifftest"
)

func TestRunCorpus(t *testing.T) {
	skifftest.RunCorpus(t, "testdata/corpus/*.txtar", func(t *testing.T, dir string) skiff.Options {
		return *skifftest.Load(t, dir, "", "SKIFF_DATASTORES__DEFAULT__URL="+filepath.Join(t.TempDir(), "test.db"))
	})
}

func TestMatchJSON(t *testing.T) {
	tests := []struct {
		want, got string
		diffs     int
	}{
		{`{"a": 1}`, `{"a": 1.0}`, 0},
		{`{"a": 1}`, `{"a": 2}`, 1},
		{`{"a": 1}`, `{"a": 1, "b": 2}`, 1},
		{`{"a": 1, "...": ""}`, `{"a": 1, "b": 2}`, 0},
		{`{"a": 1, "c": 3}`, `{"a": 1}`, 1},
		{`{"b": "$absent", "...": ""}`, `{"a": 1}`, 0},
		{`{"b": "$absent", "...": ""}`, `{"a": 1, "b": null}`, 1},
		{`{"a": "$any"}`, `{"a": null}`, 0},
		{`{"a": "$any"}`, `{}`, 1},
		{`"$number"`, `3`, 0},
		{`"$number"`, `"3"`, 1},
		{`"$string"`, `"3"`, 0},
		{`"$timestamp"`, `1795707885242`, 0},
		{`"$timestamp"`, `1795707885`, 1},
		{`"$len 2"`, `[1, {}]`, 0},
		{`"$len 2"`, `[1]`, 1},
		{`"$contains ll"`, `"hello"`, 0},
		{`"$contains xx"`, `"hello"`, 1},
		{`"$$x"`, `"$x"`, 0},
		{`[1, [2, "x"]]`, `[1, [2, "x"]]`, 0},
		{`[1, [2, "x"]]`, `[1, [2, "y"]]`, 1},
		{`[1, 2]`, `[2, 1]`, 2},
		{`[]`, `{}`, 1},
		{`null`, `null`, 0},
		{`true`, `false`, 1},
	}
	for _, tt := range tests {
		diffs, err := skifftest.MatchJSON([]byte(tt.want), []byte(tt.got))
		if err != nil {
			t.Errorf("MatchJSON(%s, %s): %v", tt.want, tt.got, err)
			continue
		}
		if len(diffs) != tt.diffs {
			t.Errorf("MatchJSON(%s, %s) = %q, want %d differences", tt.want, tt.got, diffs, tt.diffs)
		}
	}
	for _, want := range []string{`{"a": "$nope"}`, `"$len x"`, `{"a":`} {
		if _, err := skifftest.MatchJSON([]byte(want), []byte(`{"a": 1}`)); err == nil {
			t.Errorf("MatchJSON(%s) gave no error", want)
		}
	}
}
