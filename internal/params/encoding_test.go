package params_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skiffhq/skiff/internal/params"
	"github.com/skiffhq/skiff/model"
)

// TestContentEncoding: gzip and deflate bodies are decoded (as
// body-parser inflates them), other encodings are 415, and the limit
// applies to the decoded bytes (issue 19: gzip was read as plain text).
func TestContentEncoding(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	zl := func(s string) []byte {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	big := `{"name":"` + strings.Repeat("x", 100000) + `"}`
	cases := []struct {
		name, enc string
		body      []byte
		want      any
		kind      model.Kind
	}{
		{"gzip", "gzip", gz(`{"name":"Ann"}`), map[string]any{"name": "Ann"}, 0},
		{"x-gzip", "X-GZIP", gz(`{"name":"Ann"}`), map[string]any{"name": "Ann"}, 0},
		{"deflate", "deflate", zl(`{"name":"Ann"}`), map[string]any{"name": "Ann"}, 0},
		{"identity", "identity", []byte(`{"name":"Ann"}`), map[string]any{"name": "Ann"}, 0},
		{"brotli", "br", []byte(`{"name":"Ann"}`), nil, model.Unsupported},
		{"gzip named, plain sent", "gzip", []byte(`{"name":"Ann"}`), nil, model.Invalid},
		{"corrupt gzip", "gzip", gz(`{"name":"Ann"}`)[:15], nil, model.Invalid},
		{"expands over the limit", "gzip", gz(big), nil, model.TooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := request(jsonCT, tc.body)
			r.Header.Set("Content-Encoding", tc.enc)
			got, err := params.ReadBody(r, 10000)
			if tc.kind != 0 {
				if me, ok := model.AsError(err); !ok || me.Kind != tc.kind {
					t.Fatalf("ReadBody = %v, %v; want a %s error", got, err, tc.kind)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadBody: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadBody (-want +got):\n%s", diff)
			}
		})
	}
}
