// Package blueprint implements the Sails blueprint actions (find, findOne,
// create, update, destroy, populate, add, remove, replace) independently of
// the transport: HTTP and socket requests both arrive as a Request, go
// through a ParseOptionsFunc (Sails' parseBlueprintOptions) and run against
// the ORM.
package blueprint

import (
	"context"
	"net/http"

	"github.com/skiffhq/skiff/model"
)

// Action names a blueprint action.
type Action string

// The blueprint actions, spelled as Sails' req.options.blueprintAction.
const (
	Find     Action = "find"
	FindOne  Action = "findOne"
	Create   Action = "create"
	Update   Action = "update"
	Destroy  Action = "destroy"
	Populate Action = "populate"
	Add      Action = "add"
	Remove   Action = "remove"
	Replace  Action = "replace"
)

// Actions lists every blueprint action in Sails' registration order.
var Actions = []Action{Create, Find, FindOne, Update, Destroy, Populate, Add, Remove, Replace}

// Request is one invocation of a blueprint action.
type Request struct {
	Action Action
	Model  *model.Model
	// Alias is the association of populate, add, remove and replace.
	Alias string
	// Path, Body and Query are the request parameters by origin; Sails'
	// req.param and req.allParams read them in that order of precedence.
	Path  map[string]string
	Body  any
	Query map[string]any
	// Socket is the ID of the socket that sent a virtual request; "" for HTTP.
	Socket string
	// HTTP is the underlying request (headers, session), nil from Go code.
	HTTP *http.Request
	// Options are the route's options (from config routes), if any.
	RouteOptions map[string]any
	// RawBody says that the caller writes the Result's Body as JSON and
	// takes a json.RawMessage for it: then a find may answer with its
	// JSON, written as its rows are read, instead of with records.
	RawBody bool
	// Buffer, with RawBody, is memory the caller lends for that JSON: a
	// find writes it from Buffer[:0] on (growing it as append does) when
	// it is no smaller than the find's last answer, so that the Body may
	// alias the buffer. The caller must be done with the Body before it
	// reuses the memory. Nil: the find allocates.
	Buffer []byte
}

// Param returns the named parameter from the path, then the body, then the
// query string, as Sails' req.param does.
func (r *Request) Param(name string) (any, bool) {
	if v, ok := r.Path[name]; ok {
		return v, true
	}
	if b, ok := r.Body.(map[string]any); ok {
		if v, ok := b[name]; ok {
			return v, true
		}
	}
	v, ok := r.Query[name]
	return v, ok
}

// AllParams merges the query, the body and the path parameters, later ones
// winning, as Sails' req.allParams does. The result is a new map.
func (r *Request) AllParams() map[string]any {
	out := make(map[string]any, len(r.Query)+len(r.Path)+4)
	for k, v := range r.Query {
		out[k] = v
	}
	switch b := r.Body.(type) {
	case map[string]any:
		for k, v := range b {
			out[k] = v
		}
	}
	for k, v := range r.Path {
		out[k] = v
	}
	return out
}

// Options are the query options an action runs with: what Sails'
// parseBlueprintOptions returns. Criteria and Populates use the loose
// Waterline forms (as JSON would carry them); the action normalises them, so
// a hook may edit them as plain maps.
type Options struct {
	// Using is the identity of the model the action runs on.
	Using string
	// Criteria is {where, limit, skip, sort, select, omit}.
	Criteria map[string]any
	// Populates maps association names to true or to a subcriteria map.
	Populates map[string]any
	// NewRecord holds the values of create.
	NewRecord map[string]any
	// ValuesToSet holds the values of update.
	ValuesToSet map[string]any
	// Meta is passed through for custom use.
	Meta map[string]any
	// Alias, TargetRecordID and AssociatedIDs drive populate, add, remove
	// and replace.
	Alias          string
	TargetRecordID any
	AssociatedIDs  []any
}

// ParseOptionsFunc is Sails' parseBlueprintOptions. Applications usually
// call DefaultParseOptions and then edit its result. An error returned as
// *model.Error keeps its kind (use UsageError for a 400); any other error
// answers 500.
type ParseOptionsFunc func(ctx context.Context, r *Request) (*Options, error)

// UsageError returns a client error (400, code E_USAGE) a ParseOptionsFunc
// can return to refuse a request.
func UsageError(msg string) error {
	return &model.Error{Kind: model.Invalid, Code: model.CodeUsage, Msg: msg}
}

// Result is what an action answers: a status and a body already serialised
// for clients (customToJSON applied); with the Request's RawBody, a find's
// body may be a json.RawMessage, its JSON written already.
type Result struct {
	Status int
	Body   any
}
