package httpapi

import (
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
		}
		res, err := h.cfg.Service.Do(r.Context(), req, br.parse)
		if err != nil {
			h.errors.write(w, r, err)
			return
		}
		h.writeBody(w, r, res.Status, res.Body)
	})
}

// maxPooledBody bounds the buffers kept for reuse, so that one huge answer
// does not pin its memory.
const maxPooledBody = 1 << 20

// writeBody is writeJSON on a recycled buffer, with an ETag (and 304 when
// the client's copy is current) where Express would revalidate one.
func (h *handler) writeBody(w http.ResponseWriter, r *http.Request, status int, v any) {
	bp, _ := h.bodies.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
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
