package params

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/iotest"
)

// TestReadAllAsMaxBytesReader: readAll returns what io.ReadAll through
// http.MaxBytesReader returns, errors made readError's, for bodies under,
// at and over the limit, without one, read in one piece or byte by byte,
// with a read error after the data, and whatever size is announced.
func TestReadAllAsMaxBytesReader(t *testing.T) {
	failure := errors.New("connection reset")
	readers := map[string]func([]byte) io.Reader{
		"whole":      func(b []byte) io.Reader { return bytes.NewReader(b) },
		"bytewise":   func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"data+EOF":   func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"then error": func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b), iotest.ErrReader(failure)) },
	}
	for _, n := range []int{0, 1, 40, 511, 512, 513, 1000, 5000} {
		body := bytes.Repeat([]byte("x"), n)
		for _, limit := range []int64{0, 1, 40, 512, 1000, 1 << 20} {
			for name, reader := range readers {
				for _, size := range []int64{0, -1, int64(n), int64(n) - 1, int64(n) + 7, 1 << 30} {
					where := fmt.Sprintf("%d bytes, limit %d, %s, size %d", n, limit, name, size)
					var want []byte
					var werr error
					r := reader(body)
					if limit > 0 {
						r = http.MaxBytesReader(nil, io.NopCloser(r), limit)
					}
					if want, werr = io.ReadAll(r); werr != nil {
						want, werr = nil, readError(werr, limit)
					}
					got, gerr := readAll(reader(body), limit, size)
					if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
						t.Errorf("%s: readAll = %d bytes, %v; want %d bytes, %v", where, len(got), gerr, len(want), werr)
					}
				}
			}
		}
	}
}
