package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/skifftest"
)

// petshop copies examples/petshop to a temporary folder (its SQLite file
// lands there) and returns the folder.
func petshop(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"models", "config"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("..", "..", "examples", "petshop", sub))); err != nil {
			t.Fatalf("copy the petshop's %s: %v", sub, err)
		}
	}
	return dir
}

func get(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// load parses and validates a document as kin-openapi does for OpenAPI
// 3.1: the document's structure, every schema, and every example against
// its schema with the JSON Schema 2020-12 validator.
func load(t *testing.T, b []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatalf("load the document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() || doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3.1: %v", err)
	}
	metaValidate(t, b)
	return doc
}

// metaValidate checks every schema of the document (components, parameters,
// bodies, responses) against the JSON Schema 2020-12 meta-schema, which
// OpenAPI 3.1 schemas follow and kin-openapi's Validate does not apply.
func metaValidate(t *testing.T, b []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	meta, err := c.Compile("https://json-schema.org/draft/2020-12/schema")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "schema" || strings.HasPrefix(where, "/components/schemas") && strings.Count(where, "/") == 2 {
					if err := meta.Validate(e); err != nil {
						t.Errorf("the schema at %s/%s is not a JSON Schema 2020-12: %v", where, k, err)
					}
					n++
					continue
				}
				walk(where+"/"+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", where, i), e)
			}
		}
	}
	walk("", v)
	if n == 0 {
		t.Fatal("no schema found to check")
	}
}

// operation is one documented path and method.
type operation struct {
	path, method string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

// order runs creates first and destroys last, so that every other
// operation finds records to work on.
func order(o operation) int {
	id := o.op.OperationID
	switch {
	case strings.HasSuffix(id, ".create"):
		return 0
	case strings.HasSuffix(id, ".destroy"):
		return 3
	case strings.HasSuffix(id, ".remove"):
		return 2
	}
	return 1
}

// TestEveryOperationAgainstTheServer serves the petshop, checks that GET
// /openapi.json is what `skiff openapi` prints and a valid OpenAPI 3.1
// document, then sends every documented operation a request built from
// the document (minimal valid bodies, parameter examples) and checks that
// the request is valid for the document, and the answer's status is one
// the operation lists and its body validates against that response's
// schema. Blueprint operations must succeed, but for the ones documented
// to answer 400 (add, remove and replace on a singular association).
func TestEveryOperationAgainstTheServer(t *testing.T) {
	dir := petshop(t)
	_, srv := skifftest.Serve(t, *skifftest.Load(t, dir, ""))
	status, served := get(t, srv.URL+"/openapi.json")
	if status != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d %s", status, served)
	}
	printed, err := app.Describe(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(served, printed) {
		t.Errorf("GET /openapi.json differs from DescribeApp (skiff openapi)")
	}
	doc := load(t, served)

	var ops []operation
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			ops = append(ops, operation{path, method, item, op})
		}
	}
	slices.SortStableFunc(ops, func(a, b operation) int {
		if d := order(a) - order(b); d != 0 {
			return d
		}
		return strings.Compare(a.op.OperationID, b.op.OperationID)
	})
	if len(ops) < 40 {
		t.Fatalf("%d operations documented, want the petshop's blueprint routes", len(ops))
	}

	c := &client{t: t, srv: srv, doc: doc, ids: map[string][]any{}}
	// Two records of every model, for the path parameters.
	for _, o := range ops {
		if strings.HasSuffix(o.op.OperationID, ".create") {
			for range 2 {
				c.run(o)
			}
		}
	}
	// A pet with an owner, for GET /pet/{parentid}/owner.
	c.check("PATCH", "/pet/{id}", map[string]string{"id": fmt.Sprint(c.ids["pet"][0])}, nil,
		map[string]any{"owner": c.ids["user"][0]}, http.StatusOK)
	for _, o := range ops {
		if !strings.HasSuffix(o.op.OperationID, ".create") {
			c.run(o)
		}
	}

	// The error answers validate too.
	c.check("GET", "/user/{id}", map[string]string{"id": "999999"}, nil, nil, http.StatusNotFound)
	c.check("POST", "/user", nil, nil, map[string]any{"name": "No email"}, http.StatusBadRequest)
	c.check("POST", "/product", nil, nil, map[string]any{"name": "Twin", "sku": "sku-1"}, http.StatusOK)
	c.check("POST", "/product", nil, nil, map[string]any{"name": "Twin", "sku": "sku-1"}, http.StatusBadRequest)
	c.check("GET", "/pet", nil, url.Values{"where": {"{not json"}}, nil, http.StatusBadRequest)
	c.check("POST", "/tag", nil, nil, map[string]any{"label": strings.Repeat("x", 1<<20)}, http.StatusRequestEntityTooLarge)
	c.check("POST", "/pet", nil, nil, map[string]any{"name": "Nemo", "species": "shark"}, http.StatusBadRequest)
}

// client sends the documented operations to the server.
type client struct {
	t   *testing.T
	srv *httptest.Server
	doc *openapi3.T
	n   int
	// ids are the keys of the records created, by tag (model identity).
	ids map[string][]any
}

func (c *client) run(o operation) {
	c.t.Helper()
	tag := o.op.Tags[0]
	params := map[string]string{}
	query := url.Values{}
	for _, pr := range o.op.Parameters {
		p := pr.Value
		switch {
		case p.In == "path" && tag == "custom":
			params[p.Name] = "x"
		case p.In == "path":
			model := tag
			if p.Name == "childid" {
				model = strings.Split(strings.TrimPrefix(o.path, "/"), "/")[2]
				model = c.target(tag, model)
			}
			ids := c.ids[model]
			if len(ids) == 0 {
				c.t.Fatalf("%s %s: no %s record for {%s}", o.method, o.path, model, p.Name)
			}
			// Destroy takes the last record, the rest the first.
			id := ids[0]
			if strings.HasSuffix(o.op.OperationID, ".destroy") {
				id = ids[len(ids)-1]
			}
			params[p.Name] = fmt.Sprint(id)
		case p.In == "query" && p.Example != nil:
			query.Set(p.Name, fmt.Sprint(p.Example))
		}
	}
	var body any
	if rb := o.op.RequestBody; rb != nil {
		s := rb.Value.Content.Get("application/json").Schema.Value
		if s.Type.Is("array") {
			// replace: the keys of the target's first record.
			model := c.target(tag, strings.Split(strings.TrimPrefix(o.path, "/"), "/")[2])
			body = []any{c.ids[model][0]}
		} else {
			body = c.minimal(s)
		}
	}
	want := 0
	if tag != "custom" && !strings.Contains(o.op.Description, "answers 400") {
		want = http.StatusOK
	}
	got := c.check(o.method, o.path, params, query, body, want)
	if strings.HasSuffix(o.op.OperationID, ".create") {
		c.ids[tag] = append(c.ids[tag], got["id"])
	}
}

// target is the model an association route of tag reaches: the path
// segment names the association, the document's populate response names
// the target's schema.
func (c *client) target(tag, alias string) string {
	item := c.doc.Paths.Value("/" + tag + "/{parentid}/" + alias)
	s := item.Get.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	if s.Items != nil {
		s = s.Items.Value
	}
	return s.Title
}

// minimal is a value valid for s: its required properties, each the
// smallest value its schema takes (unique where strings are).
func (c *client) minimal(s *openapi3.Schema) map[string]any {
	out := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name].Value
		c.n++
		switch {
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case p.Type.Is("string") && p.Format == "email":
			out[name] = fmt.Sprintf("someone%d@example.com", c.n)
		case p.Type.Is("string"):
			out[name] = fmt.Sprintf("value %d", c.n)
		case p.Type.Is("number"), p.Type.Is("integer"):
			out[name] = 1.0
			if p.Min != nil {
				out[name] = *p.Min
			}
		case p.Type.Is("boolean"):
			out[name] = true
		default:
			c.t.Fatalf("no minimal value for the required property %s: %+v", name, p)
		}
	}
	return out
}

// check sends one request for the operation at method and path, checks it
// against the document, and that the answer is one the operation lists
// (want, unless 0) with a body its schema accepts. It returns the answer
// decoded when it is a JSON object.
func (c *client) check(method, path string, params map[string]string, query url.Values, body any, want int) map[string]any {
	t := c.t
	t.Helper()
	item := c.doc.Paths.Value(path)
	op := item.GetOperation(method)
	if op == nil {
		t.Fatalf("%s %s is not documented", method, path)
	}
	u := path
	for k, v := range params {
		u = strings.ReplaceAll(u, "{"+k+"}", url.PathEscape(v))
	}
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), method, c.srv.URL+u, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	route := &routers.Route{Spec: c.doc, Path: path, PathItem: item, Method: method, Operation: op}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if want != http.StatusBadRequest && want != 0 {
		if err := openapi3filter.ValidateRequest(t.Context(), in); err != nil {
			t.Errorf("%s %s: the request is not valid for the document: %v", method, u, err)
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(raw))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want != 0 && resp.StatusCode != want {
		t.Errorf("%s %s (%s) = %d %s, want %d", method, u, op.OperationID, resp.StatusCode, got, want)
	}
	err = openapi3filter.ValidateResponse(t.Context(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(got)), Options: &openapi3filter.Options{IncludeResponseStatus: true},
	})
	if err != nil {
		t.Errorf("%s %s (%s) = %d %s: not as documented: %v", method, u, op.OperationID, resp.StatusCode, got, err)
	}
	var rec map[string]any
	_ = json.Unmarshal(got, &rec)
	return rec
}
