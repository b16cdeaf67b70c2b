package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/internal/params"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/realtime"
)

// blueprintRoute is what a route to a blueprint action needs to run it.
type blueprintRoute struct {
	action blueprint.Action
	model  *model.Model
	alias  string
	// pathParams names the route's path parameters, read with PathValue.
	pathParams []string
	options    map[string]any
	parse      blueprint.ParseOptionsFunc
}

// handleBlueprint decodes a request into a blueprint.Request, runs it and
// encodes the result. Transport concerns stay here; the Service decides.
func (h *handler) handleBlueprint(br blueprintRoute) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query, err := params.ParseQuery(r.URL.RawQuery)
		if err != nil {
			h.errors.write(w, r, err)
			return
		}
		body, err := params.ReadBody(r, h.cfg.BodyLimit)
		if err != nil {
			h.errors.write(w, r, err)
			return
		}
		path := make(map[string]string, len(br.pathParams))
		for _, name := range br.pathParams {
			if v := r.PathValue(name); v != "" {
				path[name] = v
			}
		}
		// A find writes its JSON into the buffer the answer is written
		// from, sparing a buffer per request and a copy.
		bp := h.body()
		req := &blueprint.Request{
			Action:       br.action,
			Model:        br.model,
			Alias:        br.alias,
			Path:         path,
			Body:         body,
			Query:        query,
			Socket:       realtime.SocketID(r.Context()),
			HTTP:         r,
			RouteOptions: br.options,
			RawBody:      true,
			Buffer:       (*bp)[:0],
		}
		res, err := h.cfg.Service.Do(r.Context(), req, br.parse)
		if err != nil {
			h.bodies.Put(bp)
			h.errors.write(w, r, err)
			return
		}
		h.writeBodyInto(w, r, res.Status, res.Body, bp)
	})
}

// body returns a buffer for an answer from the pool.
func (h *handler) body() *[]byte {
	if bp, _ := h.bodies.Get().(*[]byte); bp != nil {
		return bp
	}
	return new([]byte)
}

// maxPooledBody bounds the buffers kept for reuse, so that one huge answer
// does not pin its memory.
const maxPooledBody = 1 << 20

// writeBody is writeJSON on a recycled buffer, with an ETag (and 304 when
// the client's copy is current) where Express would revalidate one.
func (h *handler) writeBody(w http.ResponseWriter, r *http.Request, status int, v any) {
	h.writeBodyInto(w, r, status, v, h.body())
}

// writeBodyInto is writeBody on the buffer bp from the pool, which v (a
// find's JSON, blueprint.Request.Buffer) may alias; bp goes back to the
// pool, holding the larger of the two.
func (h *handler) writeBodyInto(w http.ResponseWriter, r *http.Request, status int, v any, bp *[]byte) {
	if raw, ok := v.(json.RawMessage); ok && cap(raw) > cap(*bp) {
		// The JSON outgrew the lent buffer: the answer is written from
		// the JSON's own (Append copies it onto itself).
		*bp = raw[:0]
	}
	var tagFor *http.Request
	if h.cfg.ETag && wantsETag(r, status) {
		tagFor = r
	}
	*bp = writeJSONBuffer(w, status, v, *bp, tagFor, h.shapes)
	if cap(*bp) <= maxPooledBody {
		h.bodies.Put(bp)
	}
}
