package skiff_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// seqJSON returns the JSON list [from, from+1, ..., from+n-1].
func seqJSON(from, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(from + i))
	}
	b.WriteByte(']')
	return b.String()
}

// orBranches returns a where clause of an or of n branches on name.
func orBranches(n int) string {
	var b strings.Builder
	b.WriteString(`{"or":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"n%d"}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// shortMessage checks that an error answer is short, however many keys the
// request named.
func shortMessage(max int) func(*testing.T, any, string) {
	return func(t *testing.T, _ any, raw string) {
		t.Helper()
		if len(raw) > max {
			t.Errorf("answer is %d bytes, want at most %d: %.300s...", len(raw), max, raw)
		}
	}
}

func wantDetails(sub string) func(*testing.T, any, string) {
	return func(t *testing.T, v any, raw string) {
		t.Helper()
		d, _ := field(t, v, "details").(string)
		if !strings.Contains(d, sub) {
			t.Errorf("details %q do not say %q", d, sub)
		}
	}
}

// TestClientCannotCause500 sends what made the engines fail (issue 19, item
// 3): every request must answer 200 or a clear 400, on both engines.
func TestClientCannotCause500(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			env["SKIFF_HTTP__BODYLIMIT"] = "4mb"
			srv := startApp(t, "testdata/apps/basic", "development", env)
			vars := ids{}
			run(t, srv, vars, []step{
				{method: "POST", path: "/user", body: `{"name":"Ann","email":"ann@example.com"}`, status: 200, save: "ann"},
				{method: "POST", path: "/pet", body: `{"name":"n3","owner":{ann}}`, status: 200, save: "rex"},
			})
			where := func(w string) string { return "where=" + url.QueryEscape(w) }
			run(t, srv, vars, []step{
				// SQLite: "Expression tree is too large" at 1,000 branches.
				{method: "GET", path: "/user?" + where(orBranches(1100)), status: 200, check: wantLen(0)},
				{method: "GET", path: "/pet?" + where(orBranches(1100)), status: 200, check: wantLen(1)},
				{method: "GET", path: "/pet?" + where(`{"and":[{"name":{"!=":"x"}},`+orBranches(1100)+`]}`), status: 200, check: wantLen(1)},
				{method: "GET", path: "/user/{ann}/pets?" + where(orBranches(1100)), status: 200, check: wantLen(1)},
				// SQLite: "too many SQL variables" from 32,766 values;
				// PostgreSQL from 65,536. Refused above the limit.
				{method: "GET", path: "/pet?" + where(`{"id":{"in":`+seqJSON(1, 70000)+`}}`), status: 400,
					check: all(wantCode("E_INVALID_CRITERIA"), wantDetails("at most 10000"))},
				{method: "GET", path: "/pet?" + where(`{"id":{"nin":`+seqJSON(1, 40000)+`}}`), status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/user/{ann}/pets?" + where(`{"id":{"in":`+seqJSON(1, 40000)+`}}`), status: 400, check: wantCode("E_INVALID_POPULATES")},
				{method: "GET", path: "/pet?" + where(orBranches(10001)), status: 400, check: wantCode("E_INVALID_CRITERIA")},
				// Numbers no BIGINT holds, compared with integer keys.
				{method: "GET", path: "/pet?" + where(`{"id":{"<":1e308}}`), status: 200, check: wantLen(1)},
				{method: "GET", path: "/pet?" + where(`{"id":{">":1e19},"or":[{"owner":-1e300},{"id":{"nin":[1e300]}}]}`), status: 200, check: wantLen(0)},
				{method: "GET", path: "/pet?" + where(`{"id":{"!=":1e300}}`), status: 200, check: wantLen(1)},
				// The limit itself is served.
				{method: "GET", path: "/pet?" + where(`{"id":{"in":`+seqJSON(1, 10000)+`}}`), status: 200, check: wantLen(1)},
				{method: "GET", path: "/pet?" + where(`{"id":{"nin":`+seqJSON(100000, 5000)+`},"or":`+strings.TrimPrefix(strings.TrimSuffix(orBranches(4999), "}"), `{"or":`)+`}`), status: 200, check: wantLen(1)},
				// Replace and create naming ~40,000 ids.
				{method: "PUT", path: "/user/{ann}/pets", body: seqJSON(1, 40000), status: 400,
					check: all(wantCode("E_INVALID_ASSOCIATED_IDS"), wantDetails("at most 10000"), shortMessage(1000))},
				{method: "POST", path: "/user", body: `{"name":"Bo","email":"bo@example.com","pets":` + seqJSON(1, 40000) + `}`, status: 400,
					check: all(wantCode("E_INVALID_NEW_RECORD"), wantDetails("at most 10000"), shortMessage(1000))},
				{method: "PATCH", path: "/user/{ann}", body: `{"pets":` + seqJSON(1, 40000) + `}`, status: 400, check: shortMessage(1000)},
				// Missing ids under the limit: a short message naming a few.
				{method: "PUT", path: "/user/{ann}/pets", body: seqJSON(1000000, 10000), status: 400,
					check: all(wantCode("E_INVALID_ASSOCIATED_IDS"), wantDetails("among 1000000, 1000001, 1000002, 1000003, 1000004 (and 9995 more)"), shortMessage(1000))},
				{method: "POST", path: "/user", body: `{"name":"Bo","email":"bo@example.com","pets":` + seqJSON(1000000, 10000) + `}`, status: 400,
					check: all(wantCode("E_INVALID_NEW_RECORD"), wantDetails("(and 9995 more)"), shortMessage(1000))},
				{method: "GET", path: "/user/{ann}/pets", status: 200, check: wantLen(1)},
				// The NUL character: PostgreSQL cannot store it; refused on both.
				{method: "POST", path: "/user", body: `{"name":"a\u0000b","email":"nul@example.com"}`, status: 400,
					check: all(wantCode("E_INVALID_NEW_RECORD"), wantDetails("NUL"))},
				{method: "POST", path: "/user", body: `{"name":"Nul","email":"nul@example.com","meta":{"k\u0000":1}}`, status: 400, check: wantCode("E_INVALID_NEW_RECORD")},
				{method: "POST", path: "/user", body: `{"name":"Nul","email":"nul@example.com","meta":["\u0000"]}`, status: 400, check: wantCode("E_INVALID_NEW_RECORD")},
				{method: "PATCH", path: "/user/{ann}", body: `{"name":"\u0000"}`, status: 400,
					check: all(wantCode("E_INVALID_VALUES_TO_SET"), wantDetails("NUL"))},
				{method: "GET", path: "/user?" + where(`{"name":"a\u0000"}`), status: 400, check: all(wantCode("E_INVALID_CRITERIA"), wantDetails("NUL"))},
				{method: "GET", path: "/user?" + where(`{"name":{"startsWith":"\u0000"}}`), status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/user?" + where(`{"name":{"in":["a","\u0000"]}}`), status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/user/{ann}/pets?" + where(`{"name":"\u0000"}`), status: 400, check: wantCode("E_INVALID_POPULATES")},
				{method: "GET", path: "/user/{ann}", status: 200, check: wantField("name", "Ann")},
			})
		})
	}
}

// TestWhereTooDeep keeps the nesting limit: 400, not a stack of SQL.
func TestWhereTooDeep(t *testing.T) {
	srv := startApp(t, "testdata/apps/basic", "development", backends[0].env(t))
	w := `{"name":"x"}`
	for i := 0; i < 30; i++ {
		w = `{"or":[` + w + `,{"name":"y"}]}`
	}
	req, err := http.NewRequest("GET", srv.URL+"/user?where="+url.QueryEscape(w), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	if resp.StatusCode != 400 || body["code"] != "E_INVALID_CRITERIA" {
		t.Errorf("status %d %s, want 400 E_INVALID_CRITERIA", resp.StatusCode, raw)
	}
}

// TestHiddenAttributesNotQueryable: an attribute customToJSON hides cannot
// be filtered, sorted or selected on over blueprint routes (issue 19, item
// 5), unless customToJSON.queryable lists it.
func TestHiddenAttributesNotQueryable(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			srv := startApp(t, "testdata/apps/hidden", "development", b.env(t))
			vars := ids{}
			q := url.QueryEscape
			run(t, srv, vars, []step{
				{method: "POST", path: "/account", body: `{"name":"Ann","password":"Tr0ub4dor","nickname":"annie"}`, status: 200, save: "ann"},
				{method: "POST", path: "/note", body: `{"text":"hi","secret":"S3cret","account":{ann}}`, status: 200},
				{method: "GET", path: "/account?where=" + q(`{"password":{"startsWith":"T"}}`), status: 400,
					check: all(wantCode("E_INVALID_CRITERIA"), wantDetails("password"))},
				{method: "GET", path: "/account?where=" + q(`{"or":[{"name":"x"},{"password":"Tr0ub4dor"}]}`), status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/account?password=Tr0ub4dor", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/account?sort=password", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/account?sort=" + q(`[{"name":"ASC"},{"password":"DESC"}]`), status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/account?select=name,password", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/account/find?password=Tr0ub4dor", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/account/{ann}/notes?where=" + q(`{"secret":{"contains":"3"}}`), status: 400, check: wantCode("E_INVALID_POPULATES")},
				// Allowed: visible attributes, omit of a hidden one, and
				// the queryable one.
				{method: "GET", path: "/account?where=" + q(`{"nickname":{"startsWith":"an"}}`), status: 200, check: wantLen(1)},
				{method: "GET", path: "/account?sort=nickname&omit=password", status: 200, check: wantLen(1)},
				{method: "GET", path: "/account?name=Ann", status: 200, check: wantLen(1)},
				{method: "GET", path: "/account/{ann}/notes?where=" + q(`{"text":"hi"}`), status: 200, check: wantLen(1)},
			})
		})
	}
}

// TestDestroyNeedsKeyInPath: DELETE /user?id=1 and DELETE /user with body
// {"id":1} destroy nothing (issue 19, item 4; docs/differences.md).
func TestDestroyNeedsKeyInPath(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			srv := startApp(t, "testdata/apps/basic", "development", b.env(t))
			vars := ids{}
			run(t, srv, vars, []step{
				{method: "POST", path: "/user", body: `{"name":"Ann","email":"ann@example.com"}`, status: 200, save: "ann"},
				{method: "DELETE", path: "/user?id={ann}", status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "DELETE", path: "/user", body: `{"id":{ann}}`, status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "DELETE", path: "/user/", body: `{"id":{ann}}`, status: 400, check: wantCode("E_INVALID_CRITERIA")},
				{method: "GET", path: "/user/{ann}", status: 200, check: wantField("name", "Ann")},
				{method: "DELETE", path: "/user/{ann}?id=999", status: 200, check: wantField("name", "Ann")},
				{method: "GET", path: "/user/{ann}", status: 404},
			})
		})
	}
}
