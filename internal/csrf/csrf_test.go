package csrf_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/csrf"
)

func TestTokens(t *testing.T) {
	secret := csrf.NewSecret()
	if len(secret) != 24 {
		t.Errorf("NewSecret() = %q, want 24 characters", secret)
	}
	a, b := csrf.NewToken(secret), csrf.NewToken(secret)
	if a == b {
		t.Errorf("NewToken twice = %q both times, want fresh salts", a)
	}
	for _, tok := range []string{a, b} {
		if len(tok) != 36 || tok[8] != '-' {
			t.Errorf("NewToken() = %q, want 8-char salt, '-', 27-char hash", tok)
		}
		if !csrf.Verify(secret, tok) {
			t.Errorf("Verify(secret, %q) = false, want true", tok)
		}
	}
	other := csrf.NewSecret()
	for _, tok := range []string{"", "-", "abc", a[:len(a)-1], a + "x", csrf.NewToken(other), strings.Repeat("a-", 200)} {
		if csrf.Verify(secret, tok) {
			t.Errorf("Verify(secret, %q) = true, want false", tok)
		}
	}
	if csrf.Verify("", a) {
		t.Error("Verify with an empty secret = true, want false")
	}
}

// A token computed with Node as the csrf package does (sha1 digest, base64
// made URL-safe, padding dropped):
// "abcdefgh-" + base64url(sha1("abcdefgh-" + secret)).
func TestVerifyKnownToken(t *testing.T) {
	const secret = "4mUiXfQ5qbIrV2JXTUJb2Ddp"
	const token = "abcdefgh-AnX3tV4WNdxhSqqsKfU0VNrA6ls"
	if !csrf.Verify(secret, token) {
		t.Errorf("Verify(%q, %q) = false, want true", secret, token)
	}
}

func TestExtractOrder(t *testing.T) {
	for _, tc := range []struct {
		name, query, ct, body string
		header                map[string]string
		want                  string
	}{
		{"none", "", "", "", nil, ""},
		{"json body", "", "application/json", `{"_csrf":"B"}`, map[string]string{"X-CSRF-Token": "H"}, "B"},
		{"form body", "", "application/x-www-form-urlencoded", "a=1&_csrf=B", nil, "B"},
		{"query after body", "_csrf=Q", "application/json", `{"_csrf":"B"}`, nil, "B"},
		{"query", "_csrf=Q", "application/json", `{"a":1}`, map[string]string{"X-CSRF-Token": "H"}, "Q"},
		{"repeated query is not a string", "_csrf=Q&_csrf=R", "", "", nil, ""},
		{"empty body value falls through", "_csrf=Q", "application/json", `{"_csrf":""}`, nil, "Q"},
		{"non-string body value", "", "application/json", `{"_csrf":5}`, map[string]string{"X-Xsrf-Token": "H"}, "H"},
		{"csrf-token before x-csrf-token", "", "", "", map[string]string{"X-CSRF-Token": "X", "CSRF-Token": "C"}, "C"},
		{"xsrf-token", "", "", "", map[string]string{"XSRF-Token": "S"}, "S"},
		{"x-xsrf-token", "", "", "", map[string]string{"X-XSRF-TOKEN": "S"}, "S"},
		{"unparsed content type", "", "text/plain", `{"_csrf":"B"}`, nil, ""},
		{"malformed json", "", "application/json", `{"_csrf":`, map[string]string{"X-CSRF-Token": "H"}, "H"},
		{"body over the limit", "", "application/json", `{"_csrf":"B","pad":"` + strings.Repeat("x", 100) + `"}`, map[string]string{"X-CSRF-Token": "H"}, "H"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x?"+tc.query, strings.NewReader(tc.body))
			if tc.ct != "" {
				r.Header.Set("Content-Type", tc.ct)
			}
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			if got := csrf.Extract(r, 64); got != tc.want {
				t.Errorf("Extract = %q, want %q", got, tc.want)
			}
			rest, _ := io.ReadAll(r.Body)
			if string(rest) != tc.body {
				t.Errorf("body after Extract = %q, want it intact: %q", rest, tc.body)
			}
		})
	}
}

func TestChecked(t *testing.T) {
	for m, want := range map[string]bool{"GET": false, "HEAD": false, "OPTIONS": false, "POST": true, "PUT": true, "PATCH": true, "DELETE": true} {
		if got := csrf.Checked(m); got != want {
			t.Errorf("Checked(%s) = %v, want %v", m, got, want)
		}
	}
}

func TestProtectWithoutSessionRefuses(t *testing.T) {
	h := csrf.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(csrf.Token(r)))
	}), csrf.Config{Forbidden: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) })})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/", nil))
	if w.Code != 403 {
		t.Errorf("POST without a session = %d, want 403", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 200 || w.Body.String() != "" {
		t.Errorf("GET without a session = %d %q, want 200 and no token", w.Code, w.Body)
	}
}
