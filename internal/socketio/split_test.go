package socketio

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// splitArray must agree with json.Unmarshal into []json.RawMessage.
func TestSplitArrayMatchesUnmarshal(t *testing.T) {
	for _, in := range splitSeeds {
		checkSplit(t, []byte(in))
	}
}

func FuzzSplitArray(f *testing.F) {
	for _, in := range splitSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkSplit(t, b) })
}

var splitSeeds = []string{
	`[]`, ` [ ] `, `[1]`, `[1,2]`, `[ 1 , 2 ]`, "[\t\"a\"\n,\r{}]", `["get",{"url":"/a","data":{"x":[1,{"y":"]"}]}}]`,
	`["a\"b",null,true,false,-1.5e3]`, `[[],[[]],{}]`, `["\\",{"k":"\\\""}]`, `["é\u00e9"]`, "[\"\xff\"]",
	`{}`, `"x"`, `1`, `[`, `[1,]`, ``, `[1 2]`, `["a"] x`,
}

func checkSplit(t *testing.T, b []byte) {
	t.Helper()
	var want []json.RawMessage
	wantErr := json.Unmarshal(b, &want)
	got, ok := splitArray(b)
	if ok != (wantErr == nil) {
		t.Fatalf("splitArray(%q) ok = %v, json.Unmarshal error = %v", b, ok, wantErr)
	}
	if ok && !cmp.Equal(got, want) {
		t.Fatalf("splitArray(%q) = %q, want %q", b, got, want)
	}
	if !ok || len(got) == 0 {
		return
	}
	var wantName string
	nameErr := json.Unmarshal(got[0], &wantName)
	name, ok := unquote(got[0])
	if ok != (nameErr == nil) || name != wantName {
		t.Fatalf("unquote(%q) = %q, %v; json.Unmarshal = %q, %v", got[0], name, ok, wantName, nameErr)
	}
}
