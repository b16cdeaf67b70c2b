package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/skiffhq/skiff/internal/jsonenc"
	"github.com/skiffhq/skiff/internal/reqlog"
	"github.com/skiffhq/skiff/model"
)

// statusFor is the one table from error kinds to HTTP statuses.
func statusFor(k model.Kind) int {
	switch k {
	case model.Invalid:
		return http.StatusBadRequest
	case model.NotFound:
		return http.StatusNotFound
	case model.Conflict:
		return http.StatusConflict
	case model.Forbidden:
		return http.StatusForbidden
	case model.Unauthorized:
		return http.StatusUnauthorized
	case model.TooLarge:
		return http.StatusRequestEntityTooLarge
	case model.Unsupported:
		return http.StatusUnsupportedMediaType
	}
	return http.StatusInternalServerError
}

// errorWriter renders errors in the shapes Sails clients expect and logs
// internal ones, once, here at the boundary.
type errorWriter struct {
	production bool
	log        *slog.Logger
}

func (ew errorWriter) write(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := model.AsError(err)
	if !ok || e.Kind == model.Internal {
		ew.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "url", r.URL.String(),
			"request_id", reqlog.ID(w), "err", err)
		writeText(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	status := statusFor(e.Kind)
	switch {
	case e.Kind == model.NotFound:
		// Sails' res.notFound() answers plain text whatever it was given.
		writeText(w, status, "Not Found")
	case e.Kind == model.Forbidden:
		writeText(w, status, "Forbidden")
	case e.Code == model.CodeUnique:
		attrs := e.Attrs
		if attrs == nil {
			attrs = []string{}
		}
		writeJSON(w, status, map[string]any{
			"code": e.Code, "message": e.Msg, "modelIdentity": e.Model, "attrNames": attrs,
		})
	default:
		code := e.Code
		if code == "" {
			code = defaultCode(e.Kind)
		}
		msg := "The server could not fulfill this request (`" + r.Method + " " + r.URL.Path +
			"`) due to a problem with the parameters that were sent.  See the `details` for more info."
		if !ew.production {
			msg += "  **The following additional tip will not be shown in production**:  Tip: Check your client-side code to make sure that the request is being sent with the correct parameters."
		}
		writeJSON(w, status, map[string]any{"code": code, "details": e.Msg, "message": msg})
	}
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeJSONBuffer(w, status, v, make([]byte, 0, 1024), nil, nil)
}

// writeJSONBuffer is writeJSON encoding into buf, and returns the buffer
// (grown as needed) for reuse. With tagFor set, the answer carries
// Express's weak ETag of its body and, when tagFor's validators match it,
// is 304 Not Modified without a body or Content-Type, as Express's res.send
// answers. known, when not nil, are the object shapes the encoder tries
// first.
func writeJSONBuffer(w http.ResponseWriter, status int, v any, buf []byte, tagFor *http.Request, known *jsonenc.Shapes) []byte {
	// Express's res.json does not escape <, > and & either (jsonenc.Append
	// never does).
	body, err := jsonenc.Append(buf[:0], v, known)
	if err != nil {
		writeText(w, http.StatusInternalServerError, "Internal Server Error")
		return body
	}
	body = append(body, '\n')
	// The keys are canonical: Set would only canonicalise them again. The
	// two header values come in one allocation, each its own slice
	// (capacity one: appending to either copies).
	vals := &[2]string{1: "application/json; charset=utf-8"}
	if tagFor != nil {
		etag := weakETag(body)
		vals[0] = etag
		w.Header()["Etag"] = vals[0:1:1]
		if fresh(tagFor.Header, etag) {
			w.WriteHeader(http.StatusNotModified)
			return body
		}
	}
	w.Header()["Content-Type"] = vals[1:2:2]
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return body
}

// defaultCode names errors that were classified without a Waterline code.
func defaultCode(k model.Kind) string {
	switch k {
	case model.TooLarge:
		return "E_REQUEST_TOO_LARGE"
	case model.Unsupported:
		return "E_UNSUPPORTED_MEDIA_TYPE"
	case model.Conflict:
		return "E_CONFLICT"
	case model.Unauthorized:
		return "E_UNAUTHORIZED"
	}
	return "E_BAD_REQUEST"
}
