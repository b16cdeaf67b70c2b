package params

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skiffhq/skiff/model"
)

// Limits of urlencoded and multipart bodies, as body-parser's extended
// urlencoded parser sets them for qs: 1000 parameters at most (more is a
// 413), 32 levels of nesting, and array indexes up to the larger of 100 and
// the parameter count.
const (
	bodyParameterLimit = 1000
	bodyDepth          = 32
	bodyArrayLimit     = 100
)

type bodyKind uint8

const (
	bodyIgnored bodyKind = iota
	bodyJSON
	bodyForm
	bodyMultipart
)

// ReadBody parses r's body by its Content-Type, as Sails' body parser does:
//
//   - application/json (and application/*+json): any JSON value, an object
//     as map[string]any, numbers as float64. An integer literal that float64
//     cannot hold exactly is refused rather than silently rounded.
//   - application/x-www-form-urlencoded: qs' extended syntax, as ParseQuery,
//     with body-parser's limits (1000 parameters, 32 levels).
//   - multipart/form-data: the text fields only, their names read with the
//     same qs nesting; file parts are skipped.
//   - anything else, or no Content-Type: ignored (nil), the body unread.
//
// A charset parameter is accepted: UTF-8 and US-ASCII as they are, ISO-8859-1
// converted; others are refused. An empty body (or one with no fields) is
// nil. ReadBody consumes r.Body.
//
// A body over limit bytes (limit <= 0: no limit) is refused while it streams
// with a *model.Error of Kind model.TooLarge; an unparseable one with Kind
// model.Invalid and Code model.CodeInvalidBody, whose Msg says why.
func ReadBody(r *http.Request, limit int64) (any, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	mediaType, mparams := mediaType(r.Header.Get("Content-Type"))
	kind := kindOf(mediaType)
	if kind == bodyIgnored {
		return nil, nil
	}
	if limit > 0 && r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	body, err := decoded(r)
	if err != nil {
		return nil, err
	}
	size := int64(0)
	if body == r.Body {
		size = r.ContentLength
	}
	// The limit applies to the decoded bytes: a small compressed body may
	// not expand past it either.
	data, err := readAll(body, limit, size)
	if err != nil {
		return nil, err
	}
	if kind == bodyMultipart {
		return readMultipart(data, mparams["boundary"])
	}
	if data, err = toUTF8(data, mparams["charset"]); err != nil {
		return nil, err
	}
	if kind == bodyJSON {
		return decodeJSON(data)
	}
	return decodeForm(string(data))
}

// mediaType returns the lower-cased media type of a Content-Type header and
// its parameters, tolerating malformed parameters.
func mediaType(ct string) (string, map[string]string) {
	if ct == "application/json" { // the usual header: nothing to parse
		return ct, nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		return strings.ToLower(strings.TrimSpace(mt)), map[string]string{}
	}
	return mt, params
}

// Parses reports whether ReadBody parses a body with this Content-Type
// header (JSON, urlencoded or multipart); other bodies it leaves unread.
func Parses(contentType string) bool {
	mt, _ := mediaType(contentType)
	return kindOf(mt) != bodyIgnored
}

func kindOf(mt string) bodyKind {
	switch {
	case mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
		return bodyJSON
	case mt == "application/x-www-form-urlencoded":
		return bodyForm
	case mt == "multipart/form-data":
		return bodyMultipart
	}
	return bodyIgnored
}

// decoded returns r's body decoded by its Content-Encoding, as
// body-parser inflates them: gzip and deflate (zlib) are read, identity
// or none is the body itself, anything else is refused with a
// *model.Error of Kind model.Unsupported (415).
func decoded(r *http.Request) (io.Reader, error) {
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return r.Body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, invalid(err, "could not read the gzip request body")
		}
		return zr, nil
	case "deflate":
		zr, err := zlib.NewReader(r.Body)
		if err != nil {
			return nil, invalid(err, "could not read the deflate request body")
		}
		return zr, nil
	default:
		return nil, &model.Error{Kind: model.Unsupported, Code: "E_UNSUPPORTED_ENCODING",
			Msg: fmt.Sprintf("unsupported content encoding %q: send the body as it is, or gzip or deflate", enc)}
	}
}

func tooLarge(limit int64) error {
	return &model.Error{Kind: model.TooLarge, Msg: fmt.Sprintf("request body is larger than %d bytes", limit)}
}

func invalid(err error, format string, args ...any) error {
	return &model.Error{Kind: model.Invalid, Code: model.CodeInvalidBody, Msg: fmt.Sprintf(format, args...), Err: err}
}

// readAll reads body to its end as io.ReadAll through
// http.MaxBytesReader(limit) would, with their errors made readError's
// (limit <= 0: no limit), without their two allocations, and with room for
// size bytes from the start when size, the body's announced length, is
// positive: the usual small JSON body then needs 60 bytes, not 512.
func readAll(body io.Reader, limit, size int64) ([]byte, error) {
	n := int64(512)
	if size > 0 && size < 1<<20 {
		n = size + 1 // room to read the end without growing
	}
	if limit > 0 && n > limit+1 {
		n = limit + 1
	}
	b := make([]byte, 0, n)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		p := b[len(b):cap(b)]
		if limit > 0 && int64(len(p)) > limit+1-int64(len(b)) {
			p = p[:limit+1-int64(len(b))] // as MaxBytesReader reads
		}
		k, err := body.Read(p)
		b = b[:len(b)+k]
		if limit > 0 && int64(len(b)) > limit {
			return nil, tooLarge(limit)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, readError(err, limit)
		}
	}
}

// readError classifies an error met while reading the body: over the limit,
// or the client went away or sent a broken stream.
func readError(err error, limit int64) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return tooLarge(limit)
	}
	return invalid(err, "could not read the request body")
}

// toUTF8 converts a body in the given charset to UTF-8.
func toUTF8(data []byte, charset string) ([]byte, error) {
	switch strings.ToLower(charset) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return data, nil
	case "iso-8859-1", "latin1", "latin-1", "l1", "iso8859-1":
		out := make([]byte, 0, len(data)+len(data)/8)
		for _, c := range data {
			out = utf8.AppendRune(out, rune(c))
		}
		return out, nil
	}
	return nil, invalid(nil, "unsupported charset %q", charset)
}

// decodeJSON decodes a JSON body, its numbers as float64.
func decodeJSON(data []byte) (any, error) {
	// A body without an integer that float64 might round (16 digits or
	// more in a row) and that Unmarshal takes is decoded as decodeJSONStream
	// decodes it, without its decoder's buffer, json.Numbers and second
	// walk; any other, and its error, is decodeJSONStream's.
	if !longDigitRun(data) {
		var v any
		if json.Unmarshal(data, &v) == nil {
			return v, nil
		}
	}
	return decodeJSONStream(data)
}

// longDigitRun reports whether data holds 16 or more digits in a row: the
// shortest integer that float64 may not represent exactly (2^53 + 1).
func longDigitRun(data []byte) bool {
	n := 0
	for _, c := range data {
		if c >= '0' && c <= '9' {
			if n++; n >= 16 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// decodeJSONStream decodes a JSON body with its numbers' texts kept
// (json.Number) to refuse those that float64 would not hold as sent, and
// says why a body is not JSON.
func decodeJSONStream(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, nil // empty or blank body
		}
		return nil, invalid(err, "unable to parse the JSON body: %s", jsonReason(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, invalid(err, "unable to parse the JSON body: unexpected data after the top-level value (offset %d)", dec.InputOffset())
	}
	return numbersToFloat(v)
}

// jsonReason describes a decoding error without Go type names.
func jsonReason(err error) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("%s (offset %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}

// numbersToFloat replaces the json.Numbers of v by float64, refusing
// numbers out of float64's range and integers it would round.
func numbersToFloat(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, invalid(err, "number %s is out of range", s)
		}
		if !strings.ContainsAny(s, ".eE") && strconv.FormatFloat(f, 'f', -1, 64) != s {
			return nil, invalid(nil, "integer %s cannot be represented exactly as a number; send it as a string", s)
		}
		return f, nil
	case map[string]any:
		for k, e := range x {
			f, err := numbersToFloat(e)
			if err != nil {
				return nil, err
			}
			x[k] = f
		}
	case []any:
		for i, e := range x {
			f, err := numbersToFloat(e)
			if err != nil {
				return nil, err
			}
			x[i] = f
		}
	}
	return v, nil
}

// decodeForm parses an urlencoded body with body-parser's extended parser.
func decodeForm(s string) (any, error) {
	if s == "" {
		return nil, nil
	}
	n := strings.Count(s, "&") + 1
	if n > bodyParameterLimit {
		return nil, tooManyParameters()
	}
	o := qsOptions{depth: bodyDepth, arrayLimit: max(bodyArrayLimit, n), parameterLimit: bodyParameterLimit}
	return parseQS(splitPairs(s, o.parameterLimit), o), nil
}

// readMultipart collects the text fields of a multipart/form-data body. The
// body is read whole first (it is bounded by the limit) because a stream cut
// short inside a part's header looks like a clean end to mime/multipart.
func readMultipart(data []byte, boundary string) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if boundary == "" {
		return nil, invalid(nil, "multipart body without a boundary parameter")
	}
	if !bytes.Contains(data, []byte("--"+boundary+"--")) {
		return nil, invalid(nil, "multipart body is truncated: no closing boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(data), boundary)
	fields := &pairs{}
	n := 0
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, invalid(err, "malformed multipart body")
		}
		name := part.FormName()
		if name == "" || part.FileName() != "" {
			// Skipper streams files to a receiver; Skiff has none, so a
			// file part is passed over.
			continue
		}
		val, err := io.ReadAll(part)
		if err != nil {
			return nil, invalid(err, "malformed multipart body")
		}
		if n++; n > bodyParameterLimit {
			return nil, tooManyParameters()
		}
		fields.add(strings.ToValidUTF8(name, "\uFFFD"), strings.ToValidUTF8(string(val), "\uFFFD"))
	}
	if n == 0 {
		return nil, nil
	}
	o := qsOptions{depth: bodyDepth, arrayLimit: max(bodyArrayLimit, n), parameterLimit: bodyParameterLimit}
	return parseQS(fields, o), nil
}

func tooManyParameters() error {
	return &model.Error{Kind: model.TooLarge, Msg: fmt.Sprintf("too many parameters (more than %d)", bodyParameterLimit)}
}
