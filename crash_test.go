//go:build crash

package skiff_test

// The crash-safety check (issue 19): a bounded write load of creates with
// collections, replaces from both sides, add / remove and destroys against
// `skiff serve`; kill -9 of the server in the middle; a restart; then every
// acknowledged write must be there and no change half done. Each worker
// owns its records and runs its requests one after the other, so the state
// it last saw acknowledged is exactly known; the one request in flight at
// the kill may or may not have been made, entirely.
//
//	go test -tags crash -run TestCrashSafety -v .
//	CRASH_RUNS=5 go test -tags crash -run TestCrashSafety -v .

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// crashState is what a worker's records look like: the owner of each of
// its pets (0: none) and the members of its tag.
type crashState struct {
	owner map[int]int
	tag   map[int]bool
}

func (s crashState) clone() crashState {
	return crashState{owner: maps.Clone(s.owner), tag: maps.Clone(s.tag)}
}

// crashWorker runs one worker's requests and keeps what they made.
type crashWorker struct {
	user, tag int
	acked     crashState // after the last acknowledged request
	pending   *crashState
	// pendingCreate is set while a create of a pet is in flight.
	pendingCreate bool
	writes        int
}

type crashServer struct {
	bin, app, url string
	env           []string
	cmd           *exec.Cmd
}

func (s *crashServer) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s.cmd = exec.Command(s.bin, "serve", "--app", s.app, "--port", strconv.Itoa(port), "--host", "127.0.0.1")
	s.cmd.Env = append(os.Environ(), s.env...)
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, io.Discard
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	for range 200 {
		if resp, err := http.Get(s.url + "/tag"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the server did not start")
}

func (s *crashServer) kill() {
	_ = s.cmd.Process.Kill() // SIGKILL
	_ = s.cmd.Wait()
}

// call sends a request and decodes its JSON answer; ok is false when no
// 200 answer came (the server died, or refused).
func (s *crashServer) call(method, path string, body any) (any, bool) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		return nil, false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return nil, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return v, true
}

func idOf(v any) int {
	m, _ := v.(map[string]any)
	f, _ := m["id"].(float64)
	return int(f)
}

func TestCrashSafety(t *testing.T) {
	runs := 2
	if n, err := strconv.Atoi(os.Getenv("CRASH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	bin := filepath.Join(t.TempDir(), "skiff")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/skiff").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			var acked, lost, broken int
			for run := range runs {
				env := []string{"SKIFF_MODELS__MIGRATE=alter", "SKIFF_HTTP__BODYLIMIT=1mb"}
				for k, v := range b.env(t) {
					env = append(env, k+"="+v)
				}
				a, l, x := crashRun(t, bin, env, run)
				acked, lost, broken = acked+a, lost+l, broken+x
			}
			t.Logf("%s: %d runs, %d writes acknowledged, %d lost, %d inconsistencies", b.name, runs, acked, lost, broken)
			if lost > 0 || broken > 0 {
				t.Errorf("%d acknowledged writes lost, %d inconsistencies", lost, broken)
			}
		})
	}
}

// crashRun loads a fresh server, kills it, restarts it and checks; it
// returns the writes acknowledged, those lost and the inconsistencies.
func crashRun(t *testing.T, bin string, env []string, run int) (acked, lost, broken int) {
	app := t.TempDir()
	if err := os.CopyFS(app, os.DirFS("testdata/apps/basic")); err != nil {
		t.Fatal(err)
	}
	s := &crashServer{bin: bin, app: app, env: env}
	s.start(t)
	const workers = 6
	ws := make([]*crashWorker, workers)
	for i := range ws {
		u, ok1 := s.call("POST", "/user", map[string]any{"name": fmt.Sprint("u", i), "email": fmt.Sprintf("u%d-%d@example.com", run, i)})
		tg, ok2 := s.call("POST", "/tag", map[string]any{"label": fmt.Sprintf("t%d-%d", run, i)})
		if !ok1 || !ok2 {
			t.Fatal("setup failed")
		}
		ws[i] = &crashWorker{user: idOf(u), tag: idOf(tg), acked: crashState{owner: map[int]int{}, tag: map[int]bool{}}}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() { w.load(s, rand.New(rand.NewPCG(uint64(run), uint64(i))), &stop) })
	}
	// Kill in the middle of the load: after some writes, at a random moment.
	time.Sleep(time.Duration(300+rand.IntN(700)) * time.Millisecond)
	s.kill()
	stop.Store(true)
	wg.Wait()
	s.start(t)
	defer s.kill()
	for _, w := range ws {
		acked += w.writes
		l, x := w.check(t, s)
		lost, broken = lost+l, broken+x
	}
	broken += crashIntegrity(t, s)
	return acked, lost, broken
}

// load runs random requests on w's records until the server dies.
func (w *crashWorker) load(s *crashServer, r *rand.Rand, stop *atomic.Bool) {
	for !stop.Load() {
		pets := slices.Sorted(maps.Keys(w.acked.owner))
		next := w.acked.clone()
		var ok bool
		switch op := r.IntN(6); {
		case op == 0 || len(pets) < 3:
			// Create a pet with an owner and a tag.
			w.pendingCreate = true
			var v any
			v, ok = s.call("POST", "/pet", map[string]any{"name": "p", "owner": w.user, "tags": []int{w.tag}})
			if ok {
				id := idOf(v)
				next.owner[id], next.tag[id] = w.user, true
			}
		case op == 1:
			sub := subset(r, pets)
			for _, p := range pets {
				next.owner[p] = 0
			}
			for _, p := range sub {
				next.owner[p] = w.user
			}
			w.pending = &next
			_, ok = s.call("PUT", fmt.Sprintf("/user/%d/pets", w.user), sub)
		case op == 2:
			sub := subset(r, pets)
			next.tag = map[int]bool{}
			for _, p := range sub {
				next.tag[p] = true
			}
			w.pending = &next
			_, ok = s.call("PUT", fmt.Sprintf("/tag/%d/pets", w.tag), sub)
		case op == 3:
			p := pets[r.IntN(len(pets))]
			method := "PUT"
			if next.tag[p] {
				method = "DELETE"
				delete(next.tag, p)
			} else {
				next.tag[p] = true
			}
			w.pending = &next
			_, ok = s.call(method, fmt.Sprintf("/tag/%d/pets/%d", w.tag, p), nil)
		case op == 4:
			// From the other side: the pet's tags.
			p := pets[r.IntN(len(pets))]
			tags := []int{}
			delete(next.tag, p)
			if r.IntN(2) == 0 {
				tags = append(tags, w.tag)
				next.tag[p] = true
			}
			w.pending = &next
			_, ok = s.call("PUT", fmt.Sprintf("/pet/%d/tags", p), tags)
		default:
			p := pets[r.IntN(len(pets))]
			delete(next.owner, p)
			delete(next.tag, p)
			w.pending = &next
			_, ok = s.call("DELETE", fmt.Sprintf("/pet/%d", p), nil)
		}
		if !ok {
			return // the server is gone: the request is in flight
		}
		w.acked, w.pending, w.pendingCreate = next, nil, false
		w.writes++
	}
}

func subset(r *rand.Rand, ids []int) []int {
	out := []int{}
	for _, id := range ids {
		if r.IntN(2) == 0 {
			out = append(out, id)
		}
	}
	return out
}

// check compares w's records after the restart with what was
// acknowledged (or what the request in flight would have made).
func (w *crashWorker) check(t *testing.T, s *crashServer) (lost, broken int) {
	up, ok := s.call("GET", fmt.Sprintf("/user/%d/pets?limit=100000", w.user), nil)
	tp, ok2 := s.call("GET", fmt.Sprintf("/tag/%d/pets?limit=100000", w.tag), nil)
	if !ok || !ok2 {
		t.Errorf("user %d or tag %d missing after the restart", w.user, w.tag)
		return 1, 0
	}
	got := crashState{owner: map[int]int{}, tag: map[int]bool{}}
	known := maps.Clone(w.acked.owner)
	if w.pending != nil {
		maps.Copy(known, w.pending.owner)
	}
	for id := range known {
		p, ok := s.call("GET", fmt.Sprintf("/pet/%d?populate=false", id), nil)
		if !ok {
			continue // gone
		}
		o, _ := p.(map[string]any)["owner"].(float64)
		got.owner[id] = int(o)
	}
	for _, p := range up.([]any) {
		got.owner[idOf(p)] = w.user
	}
	for _, p := range tp.([]any) {
		got.tag[idOf(p)] = true
	}
	same := func(want crashState) bool {
		return maps.Equal(want.owner, got.owner) && maps.Equal(want.tag, got.tag)
	}
	if same(w.acked) || w.pending != nil && same(*w.pending) {
		return 0, 0
	}
	if w.pendingCreate {
		// A created pet whose answer was lost: one unknown pet, owned and
		// tagged, on top of the acknowledged state.
		extra := w.acked.clone()
		for id := range got.owner {
			if _, ok := known[id]; !ok {
				extra.owner[id], extra.tag[id] = w.user, true
			}
		}
		if same(extra) && len(extra.owner) == len(w.acked.owner)+1 {
			return 0, 0
		}
	}
	t.Errorf("user %d / tag %d after the restart: owners %v tag %v; acknowledged owners %v tag %v (pending %v)",
		w.user, w.tag, got.owner, got.tag, w.acked.owner, w.acked.tag, w.pending)
	return 1, 0
}

// crashIntegrity checks every association from both sides: each pet's
// owner exists and lists it, each many-to-many link is seen from both
// sides once, and no link names a record that is gone.
func crashIntegrity(t *testing.T, s *crashServer) int {
	list := func(path string) []any {
		v, ok := s.call("GET", path, nil)
		if !ok {
			t.Errorf("GET %s failed after the restart", path)
			return nil
		}
		l, _ := v.([]any)
		return l
	}
	broken := 0
	userPets := map[[2]int]bool{}
	for _, u := range list("/user?limit=100000&populate=false") {
		for _, p := range list(fmt.Sprintf("/user/%d/pets?limit=100000", idOf(u))) {
			userPets[[2]int{idOf(u), idOf(p)}] = true
		}
	}
	fromPets, fromTags := map[[2]int]int{}, map[[2]int]int{}
	for _, p := range list("/pet?limit=100000&populate=false") {
		pm := p.(map[string]any)
		if o, ok := pm["owner"].(float64); ok && !userPets[[2]int{int(o), idOf(p)}] {
			t.Errorf("pet %d has owner %v, whose pets do not list it", idOf(p), o)
			broken++
		}
		for _, tg := range list(fmt.Sprintf("/pet/%d/tags?limit=100000", idOf(p))) {
			fromPets[[2]int{idOf(p), idOf(tg)}]++
		}
	}
	for _, tg := range list("/tag?limit=100000&populate=false") {
		for _, p := range list(fmt.Sprintf("/tag/%d/pets?limit=100000", idOf(tg))) {
			fromTags[[2]int{idOf(p), idOf(tg)}]++
		}
	}
	for pair, n := range fromTags {
		if n != 1 || fromPets[pair] != 1 {
			t.Errorf("link %v seen %d times from the tag, %d from the pet", pair, n, fromPets[pair])
			broken++
		}
	}
	if len(fromPets) != len(fromTags) {
		t.Errorf("%d links seen from pets, %d from tags", len(fromPets), len(fromTags))
		broken++
	}
	return broken
}
