package skiff_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/skiffhq/skiff"
)

// TestFindAnswersFromSharedBuffers checks that finds, whose JSON is
// written into the pooled buffer their answer is then written from
// (blueprint.Request.Buffer), answer each request with its own bytes when
// many run at once: answers of very different sizes, so that some outgrow
// the lent buffer and others fit in one a larger answer left, each
// compared with the same request's answer made alone.
func TestFindAnswersFromSharedBuffers(t *testing.T) {
	srv := newNoteApp(t, skiff.Options{})
	for i := 1; i <= 300; i++ {
		body := fmt.Sprintf(`{"text":%q,"rank":%d}`, strings.Repeat("n", i%40)+fmt.Sprint(i), i)
		resp, err := http.Post(srv.URL+"/note", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("create %d: status %d", i, resp.StatusCode)
		}
	}
	paths := []string{"/note?limit=300", "/note/7", "/note?limit=1", "/note?limit=50&skip=3", "/note/299", "/note?limit=120&sort=rank%20DESC"}
	want := map[string]string{}
	for _, p := range paths {
		code, body := get(t, srv.URL+p)
		if code != http.StatusOK {
			t.Fatalf("GET %s: status %d", p, code)
		}
		want[p] = body
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 60 {
				p := paths[(g+i)%len(paths)]
				resp, err := http.Get(srv.URL + p)
				if err != nil {
					errs <- err
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					errs <- err
					return
				}
				if string(b) != want[p] {
					errs <- fmt.Errorf("GET %s answered %d bytes unlike its %d alone", p, len(b), len(want[p]))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
