// Command floor is the reference Skiff's REST speed is judged against
// (issue 24): a minimal hand-written Go server for three routes of one
// model, answering byte for byte as Skiff answers them for the app in
// bench/floor/app, headers included: the first-visit session cookie, the
// ETag and the request id (headers.go). It does nothing Skiff does beyond
// its answers (no stored sessions, log lines, policies, validation beyond
// the required name, notifications). With -bare it leaves those headers out
// too, answering with the body, its type and length alone: what
// bench/floor.sh also measures, to show what the headers cost. It reads and
// writes the tables Skiff made, on the same
// database: net/http, Skiff's SQLite file settings and pools (or a pgxpool
// on PostgreSQL, as Skiff's adapter), prepared statements, one query per
// answer (the owner joined), JSON appended by hand.
//
//	GET  /pet/:id         the pet, its owner populated
//	GET  /pet?limit=N     the first N pets by id (default 30), owners populated
//	POST /pet             {"name": ..., "owner": id, "species": ..., "vaccinated": ...}
//
// bench/floor.sh builds it, checks its answers against Skiff's and loads
// both side by side.
//
//	floor -addr 127.0.0.1:18641 -sqlite app/.tmp/default.db
//	floor -addr 127.0.0.1:18641 -postgres 'postgres://...&search_path=schema'
//	floor ... -debug 127.0.0.1:9091   # Go's profiler at /debug/pprof/, to set beside Skiff's
//	floor ... -bare                    # no session cookie, ETag or request id
//	floor ... -secret S                # sign cookies as Skiff with session.secret S
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net/http"
	_ "net/http/pprof" // served on -debug's address only
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// pet is one row of the join of pet and its owner.
type pet struct {
	id, createdAt, updatedAt int64
	name, species            string
	vaccinated               bool
	hasOwner                 bool
	owner                    user
}

type user struct {
	id, createdAt, updatedAt int64
	age                      float64
	hasAge                   bool
	email, name              string
}

// newPet is a create's input.
type newPet struct {
	Name       *string `json:"name"`
	Owner      *int64  `json:"owner"`
	Species    *string `json:"species"`
	Vaccinated *bool   `json:"vaccinated"`
}

// store is the database side: SQLite or PostgreSQL.
type store interface {
	// pet reads one pet with its owner; ok is false when there is none.
	pet(ctx context.Context, id int64, p *pet) (ok bool, err error)
	// pets reads the first limit pets by id with their owners, calling
	// each with every one (p is reused).
	pets(ctx context.Context, limit int, each func(p *pet)) error
	// create inserts p (its id and owner are filled in).
	create(ctx context.Context, p *pet) error
}

// columns is the select list of a pet joined with its owner.
const columns = `p."id", p."name", p."owner", p."species", p."vaccinated", p."createdAt", p."updatedAt",
 u."id", u."age", u."email", u."name", u."createdAt", u."updatedAt"`

func main() {
	addr := flag.String("addr", "127.0.0.1:18641", "address to listen on")
	sqlitePath := flag.String("sqlite", "", "the SQLite file Skiff serves")
	pgURL := flag.String("postgres", "", "the PostgreSQL URL Skiff serves (with its search_path)")
	debugAddr := flag.String("debug", "", "address for Go's profiler (/debug/pprof/), as Skiff's admin.addr; off when empty")
	bare := flag.Bool("bare", false, "answer without Skiff's session cookie, ETag and request id")
	// Skiff's development secret, which it signs with when the app sets
	// no session.secret (as bench/floor/app does not).
	secret := flag.String("secret", "skiff-development-session-secret", "the session secret Skiff signs cookies with")
	flag.Parse()
	if *debugAddr != "" {
		// The profiler listens apart, so that the measured routes stay the
		// floor's only ones.
		go func() { log.Fatal(http.ListenAndServe(*debugAddr, nil)) }()
	}
	ctx := context.Background()
	var (
		st  store
		err error
	)
	switch {
	case *sqlitePath != "":
		st, err = openSQLite(ctx, *sqlitePath)
	case *pgURL != "":
		st, err = openPostgres(ctx, *pgURL)
	default:
		err = errors.New("give -sqlite or -postgres")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	srv := &server{st: st}
	if !*bare {
		srv.hd = newHeaders(*secret)
	}
	log.Fatal((&http.Server{Addr: *addr, Handler: srv.handler(), ReadHeaderTimeout: 10 * time.Second}).ListenAndServe())
}

// handler routes the floor's three requests.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pet/{id}", s.findOne)
	mux.HandleFunc("GET /pet", s.find)
	mux.HandleFunc("POST /pet", s.create)
	return mux
}

type server struct {
	st     store
	hd     *headers  // nil: -bare
	bodies sync.Pool // *[]byte
}

func (s *server) findOne(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	var p pet
	ok, err := s.st.pet(r.Context(), id, &p)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	b := s.buf()
	*b = appendPet(*b, &p)
	s.send(w, r, b)
}

func (s *server) find(w http.ResponseWriter, r *http.Request) {
	limit := 30
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			http.Error(w, "bad limit", http.StatusBadRequest)
			return
		}
		limit = n
	}
	b := s.buf()
	*b = append(*b, '[')
	first := true
	err := s.st.pets(r.Context(), limit, func(p *pet) {
		if !first {
			*b = append(*b, ',')
		}
		first = false
		*b = appendPet(*b, p)
	})
	if err != nil {
		s.bodies.Put(b)
		s.fail(w, err)
		return
	}
	*b = append(*b, ']')
	s.send(w, r, b)
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	var in newPet
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil || in.Name == nil {
		http.Error(w, `{"code":"E_INVALID_NEW_RECORD"}`, http.StatusBadRequest)
		return
	}
	now := time.Now().UnixMilli()
	p := pet{name: *in.Name, species: "cat", createdAt: now, updatedAt: now}
	if in.Species != nil {
		p.species = *in.Species
	}
	if in.Vaccinated != nil {
		p.vaccinated = *in.Vaccinated
	}
	if in.Owner != nil {
		p.hasOwner, p.owner.id = true, *in.Owner
	}
	if err := s.st.create(r.Context(), &p); err != nil {
		s.fail(w, err)
		return
	}
	b := s.buf()
	*b = appendPet(*b, &p)
	s.send(w, r, b)
}

func (s *server) buf() *[]byte {
	if b, ok := s.bodies.Get().(*[]byte); ok {
		*b = (*b)[:0]
		return b
	}
	b := make([]byte, 0, 4096)
	return &b
}

// send writes the body as Skiff does: JSON and a newline, with Skiff's
// headers and framing (net/http's: Content-Length for a short body,
// chunked for a longer one) unless -bare, which gives every body its
// Content-Length.
func (s *server) send(w http.ResponseWriter, r *http.Request, b *[]byte) {
	*b = append(*b, '\n')
	h := w.Header()
	if s.hd != nil {
		s.hd.set(w, r, *b, r.Method == http.MethodGet)
	} else {
		h["Content-Length"] = []string{strconv.Itoa(len(*b))}
	}
	h["Content-Type"] = []string{"application/json; charset=utf-8"}
	_, _ = w.Write(*b)
	s.bodies.Put(b)
}

func (s *server) fail(w http.ResponseWriter, err error) {
	log.Print(err)
	http.Error(w, "Internal Server Error", http.StatusInternalServerError)
}

// appendPet writes p as Skiff does: keys sorted, the owner populated (null
// without one).
func appendPet(b []byte, p *pet) []byte {
	b = append(b, `{"createdAt":`...)
	b = strconv.AppendInt(b, p.createdAt, 10)
	b = append(b, `,"id":`...)
	b = strconv.AppendInt(b, p.id, 10)
	b = append(b, `,"name":`...)
	b = appendString(b, p.name)
	b = append(b, `,"owner":`...)
	if p.hasOwner {
		u := &p.owner
		b = append(b, `{"age":`...)
		if u.hasAge {
			b = appendFloat(b, u.age)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"createdAt":`...)
		b = strconv.AppendInt(b, u.createdAt, 10)
		b = append(b, `,"email":`...)
		b = appendString(b, u.email)
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, u.id, 10)
		b = append(b, `,"name":`...)
		b = appendString(b, u.name)
		b = append(b, `,"updatedAt":`...)
		b = strconv.AppendInt(b, u.updatedAt, 10)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"species":`...)
	b = appendString(b, p.species)
	b = append(b, `,"updatedAt":`...)
	b = strconv.AppendInt(b, p.updatedAt, 10)
	b = append(b, `,"vaccinated":`...)
	b = strconv.AppendBool(b, p.vaccinated)
	return append(b, '}')
}

// appendFloat formats as encoding/json does (Skiff's encoder matches it).
func appendFloat(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, f, format, -1, 64)
}

// appendString quotes s as encoding/json does without HTML escaping.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if r == utf8.RuneError {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
