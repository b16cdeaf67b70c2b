package skifftest

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// A caseFile is one parsed case file: the app it runs against, the sockets
// that watch, and its steps in order.
type caseFile struct {
	// App is the app folder, resolved against the case file's folder.
	App string
	// Sockets are the names of the watching sockets, connected before the
	// first step.
	Sockets []string
	// Steps are the requests, in order.
	Steps []step
}

// A step is one request of a case and what it must answer.
type step struct {
	// Line is where the request's section starts in the case file.
	Line int
	// Method and Path are the request line; Path includes the query.
	Method, Path string
	// Via names the watching socket that sends the request; empty means
	// the transport under test.
	Via string
	// Header and Body are the request's; Body is nil when there is none.
	Header http.Header
	Body   []byte
	// Status is the status the answer must have.
	Status int
	// Save names the variable the answer's id is stored in, if any.
	Save string
	// WantHeader are headers the answer must carry.
	WantHeader http.Header
	// Want is the expected body (see the package doc); nil checks nothing.
	Want []byte
	// Events are the notifications the watching sockets must receive
	// because of this step, in order per socket; a watching socket not
	// listed must receive nothing.
	Events []event
}

// An event is a notification a watching socket must receive.
type event struct {
	Socket, Name string
	// Want is the expected payload, matched as a step's Want is.
	Want []byte
}

var (
	methodRE = regexp.MustCompile(`^[A-Z]+$`)
	nameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerRE = regexp.MustCompile(`^[A-Za-z0-9-]+: `)
)

// readCase reads the case file at path (see the package doc for its
// format).
func readCase(path string) (*caseFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := parseCase(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.App == "" {
		return nil, fmt.Errorf("%s: no app: line in the header", path)
	}
	if !filepath.IsAbs(c.App) {
		c.App = filepath.Join(filepath.Dir(path), c.App)
	}
	return c, nil
}

func parseCase(data []byte) (*caseFile, error) {
	c := &caseFile{}
	sc := bufio.NewScanner(bytes.NewReader(txtar.Parse(data).Comment))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		switch val = strings.TrimSpace(val); {
		case ok && key == "app":
			c.App = val
		case ok && key == "sockets":
			for _, name := range strings.Fields(val) {
				if !nameRE.MatchString(name) {
					return nil, fmt.Errorf("sockets: %q is not a name", name)
				}
				c.Sockets = append(c.Sockets, name)
			}
		}
	}
	ar := txtar.Parse(data)
	lines := markerLines(data)
	var cur *step
	for i, f := range ar.Files {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		fields := strings.Fields(f.Name)
		f.Data = dropComments(f.Data)
		switch {
		case methodRE.MatchString(fields[0]):
			s, err := parseRequest(fields, f.Data, c.Sockets)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			s.Line = line
			c.Steps = append(c.Steps, s)
			cur = &c.Steps[len(c.Steps)-1]
		case cur == nil:
			return nil, fmt.Errorf("line %d: %q comes before any request", line, f.Name)
		case isStatus(fields[0]):
			if cur.Status != 0 {
				return nil, fmt.Errorf("line %d: a second answer for the request of line %d", line, cur.Line)
			}
			if err := parseAnswer(cur, fields, f.Data); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
		case len(fields) == 3 && fields[1] == "gets":
			if cur.Status == 0 {
				return nil, fmt.Errorf("line %d: a notification before the answer of the request of line %d", line, cur.Line)
			}
			if !slices.Contains(c.Sockets, fields[0]) {
				return nil, fmt.Errorf("line %d: socket %q is not in the sockets: line", line, fields[0])
			}
			cur.Events = append(cur.Events, event{Socket: fields[0], Name: fields[2], Want: trimBody(f.Data)})
		default:
			return nil, fmt.Errorf("line %d: section %q is neither a request (METHOD /path), an answer (STATUS) nor a notification (SOCKET gets EVENT)", line, f.Name)
		}
	}
	for _, s := range c.Steps {
		if s.Status == 0 {
			return nil, fmt.Errorf("line %d: the request has no answer section", s.Line)
		}
	}
	return c, nil
}

// dropComments removes the lines starting with "#".
func dropComments(data []byte) []byte {
	var out []byte
	for line := range bytes.Lines(data) {
		if !bytes.HasPrefix(line, []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

// markerLines returns the line number of each txtar file marker.
func markerLines(data []byte) []int {
	var out []int
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") && len(strings.TrimSpace(l[3:len(l)-3])) > 0 {
			out = append(out, i+1)
		}
	}
	return out
}

func parseRequest(fields []string, data []byte, sockets []string) (step, error) {
	s := step{Method: fields[0]}
	switch {
	case len(fields) == 2:
	case len(fields) == 4 && fields[2] == "via":
		if !slices.Contains(sockets, fields[3]) {
			return s, fmt.Errorf("socket %q is not in the sockets: line", fields[3])
		}
		s.Via = fields[3]
	default:
		return s, fmt.Errorf("request %q: want METHOD /path [via SOCKET]", strings.Join(fields, " "))
	}
	s.Path = fields[1]
	if !strings.HasPrefix(s.Path, "/") {
		return s, fmt.Errorf("request path %q does not start with /", s.Path)
	}
	s.Header, s.Body = splitHeader(data)
	return s, nil
}

func parseAnswer(s *step, fields []string, data []byte) error {
	s.Status, _ = strconv.Atoi(fields[0])
	switch {
	case len(fields) == 1:
	case len(fields) == 3 && fields[1] == "save" && nameRE.MatchString(fields[2]):
		s.Save = fields[2]
	default:
		return fmt.Errorf("answer %q: want STATUS [save NAME]", strings.Join(fields, " "))
	}
	s.WantHeader, s.Want = splitHeader(data)
	return nil
}

func isStatus(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 100 && n <= 599
}

// splitHeader reads "Name: value" lines up to a blank line, when the
// section starts with one, and returns the rest as the body.
func splitHeader(data []byte) (http.Header, []byte) {
	h := http.Header{}
	if len(data) > 0 && data[0] == '\n' {
		return h, trimBody(data[1:])
	}
	for headerRE.Match(data) {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		name, val, _ := strings.Cut(string(line), ":")
		h.Add(name, strings.TrimSpace(val))
		data = rest
		if blank, rest, ok := bytes.Cut(data, []byte("\n")); ok && len(bytes.TrimSpace(blank)) == 0 {
			data = rest
			break
		}
	}
	return h, trimBody(data)
}

// trimBody drops the blank lines that end a section (txtar ends every
// section with a newline, and blank lines separate steps); an empty
// section is no body.
func trimBody(b []byte) []byte {
	b = bytes.TrimRight(b, "\r\n")
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	return b
}
