// Package openapi describes the HTTP API an app serves as an OpenAPI 3.1
// document: the blueprint routes of every model with request and response
// schemas derived from its attributes and validations, the criteria query
// parameters, the error bodies, and custom routes as operations without a
// schema. It reads the route table NewHandler binds (httpapi.Describe), so
// the description follows the blueprints settings and the binding order.
package openapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/internal/httpapi"
	"github.com/skiffhq/skiff/model"
)

// Version is the OpenAPI version of the documents Generate writes.
const Version = "3.1.0"

// Input is what a description is made from.
type Input struct {
	// Title and Version fill the info object; empty means "Skiff app" and
	// "0.0.0".
	Title, Version string
	// Routes is the route table, in binding order (httpapi.Describe).
	Routes []httpapi.RouteInfo
}

// obj is a JSON object of the document; encoding/json writes its keys
// sorted, so the same input always gives the same bytes.
type obj = map[string]any

// Generate returns the OpenAPI 3.1 document of in, as indented JSON.
func Generate(in Input) ([]byte, error) {
	g := &generator{paths: obj{}, schemas: obj{}, opIDs: map[string]int{}, seen: map[string]bool{}}
	doc := g.document(in)
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("openapi: encode the document: %w", err)
	}
	return append(b, '\n'), nil
}

type generator struct {
	paths   obj
	schemas obj
	opIDs   map[string]int
	// seen holds "METHOD /path" of the operations written: the first route
	// bound answers a request, so a later one with the same template is
	// not described.
	seen map[string]bool
	// skipped lists the custom paths OpenAPI path templates cannot express.
	skipped []string
	models  []*model.Model
	tags    []string
}

// allMethods are the methods a route bound without one is described with.
var allMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func (g *generator) document(in Input) obj {
	title, version := in.Title, in.Version
	if title == "" {
		title = "Skiff app"
	}
	if version == "" {
		version = "0.0.0"
	}
	shortcuts := false
	for _, rt := range in.Routes {
		switch {
		case rt.Shortcut:
			shortcuts = true
		case rt.Model != nil:
			g.addModel(rt.Model)
			g.blueprintOp(rt)
		case rt.GoAction != "":
			g.plainOp(rt, "Go action `"+rt.GoAction+"` (blueprints.actions).", "")
		case rt.Custom != nil:
			g.customOp(rt)
		}
	}
	desc := "The HTTP API of a Skiff app: the blueprint routes of its models (Sails 1.x conventions) and its custom routes. " +
		"Socket clients (sails.io.js) reach the same routes with virtual requests."
	if shortcuts {
		desc += " The shortcut routes (blueprints.shortcuts: GET /model/create?..., /model/update/:id?..., ...) are served but not " +
			"described: they repeat the REST routes with values in the query string, are meant for trying things in a browser, and are " +
			"off in production by default; clients should use the REST routes."
	}
	if len(g.skipped) > 0 {
		desc += " Custom routes whose paths an OpenAPI path template cannot express are not described: " + strings.Join(g.skipped, ", ") + "."
	}
	tags := []any{}
	for _, t := range g.tags {
		tags = append(tags, obj{"name": t, "description": "Blueprint routes of the model `" + t + "`."})
	}
	g.components()
	return obj{
		"openapi": Version,
		"info":    obj{"title": title, "version": version, "description": desc},
		"tags":    tags,
		"paths":   g.paths,
		"components": obj{
			"schemas":    g.schemas,
			"responses":  commonResponses(),
			"parameters": criteriaParams(),
		},
	}
}

// pathTemplate turns an Express path into an OpenAPI path template and its
// parameter names; ok is false for what a template cannot express
// (wildcards, regular expressions, optional parameters but at the end).
func pathTemplate(p string) (tmpl string, params []string, ok bool) {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "*()[]{}+") {
		return "", nil, false
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		if !strings.HasPrefix(s, ":") {
			if strings.ContainsAny(s, ":?") {
				return "", nil, false
			}
			continue
		}
		name := s[1:]
		if strings.HasSuffix(name, "?") {
			if i != len(segs)-1 {
				return "", nil, false
			}
			name = strings.TrimSuffix(name, "?")
		}
		if !paramName.MatchString(name) {
			return "", nil, false
		}
		params = append(params, name)
		segs[i] = "{" + name + "}"
	}
	return "/" + strings.Join(segs, "/"), params, true
}

var paramName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// put adds op under method and path unless an earlier route took them.
func (g *generator) put(method, tmpl string, op obj) {
	key := method + " " + tmpl
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	item, _ := g.paths[tmpl].(obj)
	if item == nil {
		item = obj{}
		g.paths[tmpl] = item
	}
	item[strings.ToLower(method)] = op
}

// opID returns a unique operationId based on base.
func (g *generator) opID(base string) string {
	g.opIDs[base]++
	if n := g.opIDs[base]; n > 1 {
		return fmt.Sprintf("%s_%d", base, n)
	}
	return base
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

// plainOp describes a route whose answers Skiff cannot know (custom
// handlers, Go actions): its path parameters and a default response.
func (g *generator) plainOp(rt httpapi.RouteInfo, summary, status string) {
	if strings.HasSuffix(rt.Path, "?") {
		// /files/:name? also answers /files.
		short := rt
		short.Path = rt.Path[:strings.LastIndexByte(rt.Path, '/')]
		if short.Path == "" {
			short.Path = "/"
		}
		g.plainOp(short, summary, status)
	}
	tmpl, params, ok := pathTemplate(rt.Path)
	if !ok {
		g.skipped = append(g.skipped, strings.TrimSpace(rt.Method+" "+rt.Path))
		return
	}
	methods := []string{rt.Method}
	if rt.Method == "" || rt.Method == "ALL" {
		methods = allMethods
	}
	for _, method := range methods {
		responses := obj{"default": obj{"description": "Answered by the app's own code; not described."}}
		if status != "" {
			responses = obj{status: obj{"$ref": "#/components/responses/" + statusResponses[status]}}
		}
		op := obj{
			"operationId": g.opID(strings.ToLower(method) + "_" + strings.Trim(nonWord.ReplaceAllString(tmpl, "_"), "_")),
			"summary":     summary,
			"tags":        []any{"custom"},
			"responses":   responses,
		}
		if ps := pathParams(params, obj{"type": "string"}); len(ps) > 0 {
			op["parameters"] = ps
		}
		g.put(method, tmpl, op)
		if !slices.Contains(g.tags, "custom") {
			g.tags = append(g.tags, "custom")
		}
	}
}

// statusResponses names the shared responses a custom route's
// response target gives.
var statusResponses = map[string]string{"200": "OK", "400": "BadRequestText", "403": "Forbidden", "404": "NotFound", "500": "ServerError", "302": "Redirect"}

func (g *generator) customOp(rt httpapi.RouteInfo) {
	c := rt.Custom
	switch {
	case c.Summary != "":
		g.plainOp(rt, c.Summary, "")
	case c.Handler != nil:
		g.plainOp(rt, "Custom route answered by Go code.", "")
	case c.Redirect != "":
		g.plainOp(rt, "Redirects to "+c.Redirect+".", "302")
	case c.Response != "":
		status := map[string]string{"ok": "200", "badRequest": "400", "forbidden": "403", "notFound": "404", "serverError": "500"}[c.Response]
		g.plainOp(rt, "Answers with the default response "+c.Response+".", status)
	default:
		g.plainOp(rt, "Custom route to the action `"+c.Action+"`.", "")
	}
}

func pathParams(names []string, schema obj) []any {
	var out []any
	for _, n := range names {
		out = append(out, obj{"name": n, "in": "path", "required": true, "schema": schema})
	}
	return out
}

// schemaName is the component name of a model: its identity with the first
// letter upper-cased, and anything a component name may not hold replaced.
func schemaName(m *model.Model) string {
	n := regexp.MustCompile(`[^A-Za-z0-9._-]`).ReplaceAllString(m.Identity, "_")
	return strings.ToUpper(n[:1]) + n[1:]
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func (g *generator) addModel(m *model.Model) {
	if slices.Contains(g.models, m) {
		return
	}
	g.models = append(g.models, m)
	g.tags = append(g.tags, m.Identity)
	// Targets of associations are described too, for populated records.
	for _, name := range m.Order {
		if a := m.Attributes[name]; a.Assoc != nil && a.Assoc.Target != nil {
			g.addModelSchemas(a.Assoc.Target)
		}
	}
	g.addModelSchemas(m)
}

func (g *generator) addModelSchemas(m *model.Model) {
	n := schemaName(m)
	if _, done := g.schemas[n]; done {
		return
	}
	g.schemas[n] = recordSchema(m, true)
	g.schemas[n+"Plain"] = recordSchema(m, false)
	g.schemas[n+"New"] = inputSchema(m, true)
	g.schemas[n+"Patch"] = inputSchema(m, false)
	for _, name := range m.Order {
		if a := m.Attributes[name]; a.Assoc != nil && a.Assoc.Target != nil {
			g.addModelSchemas(a.Assoc.Target)
		}
	}
}

// blueprintOp describes one blueprint route.
func (g *generator) blueprintOp(rt httpapi.RouteInfo) {
	m := rt.Model
	tmpl, params, ok := pathTemplate(rt.Path)
	if !ok {
		g.skipped = append(g.skipped, rt.Method+" "+rt.Path)
		return
	}
	n := schemaName(m)
	pk := keySchema(m)
	op := obj{"tags": []any{m.Identity}}
	var ps []any
	for _, p := range params {
		s := pk
		if rt.Action == blueprint.Add || rt.Action == blueprint.Remove {
			if p == "childid" {
				s = keySchema(targetOf(m, rt.Alias))
			}
		}
		ps = append(ps, obj{"name": p, "in": "path", "required": true, "schema": s})
	}
	responses := obj{
		"400": obj{"$ref": "#/components/responses/BadRequest"},
		"403": obj{"$ref": "#/components/responses/Forbidden"},
		"500": obj{"$ref": "#/components/responses/ServerError"},
	}
	one := obj{"description": "The " + m.Identity + " record.", "content": jsonContent(ref(n))}
	base := m.Identity
	switch rt.Action {
	case blueprint.Find:
		op["summary"] = "List " + m.Identity + " records matching the criteria."
		op["description"] = "Associations are populated unless populate says otherwise. " +
			"Besides where, any attribute name is a where shorthand: ?name=Rex."
		ps = append(ps, criteriaRefs("where", "limit", "skip", "sort", "select", "omit", "populate")...)
		ps = append(ps, shorthandParams(m)...)
		responses["200"] = obj{"description": "The matching records.", "content": jsonContent(obj{"type": "array", "items": ref(n)})}
		responses["304"] = obj{"$ref": "#/components/responses/NotModified"}
	case blueprint.FindOne:
		op["summary"] = "Read one " + m.Identity + " record."
		ps = append(ps, criteriaRefs("select", "omit", "populate")...)
		responses["200"] = one
		responses["304"] = obj{"$ref": "#/components/responses/NotModified"}
		responses["404"] = obj{"$ref": "#/components/responses/NotFound"}
	case blueprint.Create:
		op["summary"] = "Create a " + m.Identity + " record."
		op["requestBody"] = obj{"required": true, "content": jsonContent(ref(n + "New"))}
		responses["200"] = obj{"description": "The new record.", "content": jsonContent(ref(n))}
		responses["413"] = obj{"$ref": "#/components/responses/TooLarge"}
	case blueprint.Update:
		op["summary"] = "Change a " + m.Identity + " record (" + rt.Method + " and PATCH both merge the values given)."
		op["requestBody"] = obj{"required": true, "content": jsonContent(ref(n + "Patch"))}
		responses["200"] = obj{"description": "The record after the change.", "content": jsonContent(ref(n))}
		responses["404"] = obj{"$ref": "#/components/responses/NotFound"}
		responses["413"] = obj{"$ref": "#/components/responses/TooLarge"}
		base += "." + strings.ToLower(rt.Method)
	case blueprint.Destroy:
		op["summary"] = "Destroy a " + m.Identity + " record."
		responses["200"] = obj{"description": "The destroyed record, as it was.", "content": jsonContent(ref(n))}
		responses["404"] = obj{"$ref": "#/components/responses/NotFound"}
	case blueprint.Populate:
		t := targetOf(m, rt.Alias)
		a := m.Attr(rt.Alias)
		op["summary"] = "Read the " + rt.Alias + " of a " + m.Identity + " record."
		responses["404"] = obj{"$ref": "#/components/responses/NotFound"}
		responses["304"] = obj{"$ref": "#/components/responses/NotModified"}
		if a.IsPlural() {
			ps = append(ps, criteriaRefs("where", "limit", "skip", "sort", "select", "omit")...)
			responses["200"] = obj{"description": "The associated records.", "content": jsonContent(obj{"type": "array", "items": ref(schemaName(t) + "Plain")})}
		} else {
			op["description"] = "404 when the association is empty."
			ps = append(ps, criteriaRefs("select", "omit")...)
			responses["200"] = obj{"description": "The associated record.", "content": jsonContent(ref(schemaName(t) + "Plain"))}
		}
		base += "." + rt.Alias
	case blueprint.Add, blueprint.Remove, blueprint.Replace:
		verb := map[blueprint.Action]string{blueprint.Add: "Add a record to", blueprint.Remove: "Remove a record from", blueprint.Replace: "Replace"}[rt.Action]
		op["summary"] = verb + " the " + rt.Alias + " of a " + m.Identity + " record."
		if a := m.Attr(rt.Alias); a != nil && a.IsSingular() {
			op["description"] = "`" + rt.Alias + "` is a singular association: this answers 400; change it with an update."
		}
		if rt.Action == blueprint.Replace {
			op["requestBody"] = obj{"required": true, "content": jsonContent(obj{
				"type": "array", "items": keySchema(targetOf(m, rt.Alias)),
				"description": "The primary keys of every record the association should hold.",
			})}
			responses["413"] = obj{"$ref": "#/components/responses/TooLarge"}
		}
		responses["200"] = obj{"description": "The parent record after the change, populated.", "content": jsonContent(ref(n))}
		responses["404"] = obj{"$ref": "#/components/responses/NotFound"}
		base += "." + rt.Alias
	}
	op["operationId"] = g.opID(base + "." + string(rt.Action))
	if len(ps) > 0 {
		op["parameters"] = ps
	}
	op["responses"] = responses
	g.put(rt.Method, tmpl, op)
}

func targetOf(m *model.Model, alias string) *model.Model {
	if a := m.Attr(alias); a != nil && a.Assoc != nil && a.Assoc.Target != nil {
		return a.Assoc.Target
	}
	return m
}

func jsonContent(schema obj) obj { return obj{"application/json": obj{"schema": schema}} }

// keySchema is the schema of m's primary key.
func keySchema(m *model.Model) obj {
	if pk := m.PK(); pk != nil && pk.Type == model.String {
		return obj{"type": "string"}
	}
	return obj{"type": "number"}
}

// criteriaNames are the query parameters Skiff reads as criteria; an
// attribute of the same name gets no where shorthand parameter.
var criteriaNames = []string{"where", "limit", "skip", "sort", "select", "omit", "populate"}

func criteriaRefs(names ...string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = obj{"$ref": "#/components/parameters/" + n}
	}
	return out
}

// shorthandParams are the attribute-named query parameters find reads as
// where clauses (?name=Rex is where {"name": "Rex"}).
func shorthandParams(m *model.Model) []any {
	var out []any
	for _, name := range m.Order {
		a := m.Attributes[name]
		if a.IsPlural() || slices.Contains(criteriaNames, name) || slices.Contains(m.Omit, name) {
			continue
		}
		out = append(out, obj{
			"name": name, "in": "query", "required": false, "schema": obj{"type": "string"},
			"description": "Where shorthand: records whose `" + name + "` equals this value.",
		})
	}
	return out
}

func criteriaParams() obj {
	q := func(name, desc string, schema obj, example any) obj {
		p := obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
		if example != nil {
			p["example"] = example
		}
		return p
	}
	return obj{
		"where": q("where", "A Waterline where clause as JSON, e.g. {\"name\":{\"startsWith\":\"R\"}}.",
			obj{"type": "string"}, `{"id":{">":0}}`),
		"limit": q("limit", "At most this many records.", obj{"type": "integer", "minimum": 0}, 30),
		"skip":  q("skip", "Skip this many records first.", obj{"type": "integer", "minimum": 0}, 0),
		"sort": q("sort", "Sort order: `attr ASC`, `attr DESC`, several comma-separated, or a JSON sort clause.",
			obj{"type": "string"}, "id ASC"),
		"select": q("select", "Only these attributes, comma-separated (the primary key is always included).",
			obj{"type": "string"}, nil),
		"omit": q("omit", "Leave out these attributes, comma-separated.", obj{"type": "string"}, nil),
		"populate": q("populate", "The associations to populate, comma-separated, or `false` for none (default: all).",
			obj{"type": "string"}, nil),
	}
}

// commonResponses are the error answers every blueprint route can give.
func commonResponses() obj {
	text := func(desc, body string) obj {
		return obj{"description": desc, "content": obj{"text/plain": obj{"schema": obj{"type": "string", "const": body}}}}
	}
	return obj{
		"BadRequest": obj{"description": "Invalid criteria, values or parameters, or a unique attribute already holds the value (E_UNIQUE).",
			"content": jsonContent(obj{"anyOf": []any{ref("UniqueError"), ref("Error")}})},
		"TooLarge":       obj{"description": "The request body is larger than the body limit.", "content": jsonContent(ref("Error"))},
		"NotFound":       text("No such record (or route).", "Not Found"),
		"Forbidden":      text("Refused by a policy or the CSRF check.", "Forbidden"),
		"ServerError":    text("An internal error; it is logged with the request id.", "Internal Server Error"),
		"BadRequestText": text("The default response badRequest.", "Bad Request"),
		"OK":             text("The default response ok.", "OK"),
		"NotModified":    obj{"description": "The If-None-Match ETag matched (http.etag)."},
		"Redirect":       obj{"description": "A redirect.", "headers": obj{"Location": obj{"schema": obj{"type": "string"}}}},
	}
}

func (g *generator) components() {
	g.schemas["Error"] = obj{
		"type": "object", "required": []any{"code", "message"},
		"description": "The error body of Sails' res.badRequest and of failed writes.",
		"properties": obj{
			"code":    obj{"type": "string", "examples": []any{"E_INVALID_NEW_RECORD", "E_INVALID_CRITERIA"}},
			"message": obj{"type": "string"},
			"details": obj{"type": "string"},
		},
	}
	g.schemas["UniqueError"] = obj{
		"type": "object", "required": []any{"code", "message", "modelIdentity", "attrNames"},
		"properties": obj{
			"code":          obj{"const": model.CodeUnique},
			"message":       obj{"type": "string"},
			"modelIdentity": obj{"type": "string"},
			"attrNames":     obj{"type": "array", "items": obj{"type": "string"}},
		},
	}
}
