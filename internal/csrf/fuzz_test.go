package csrf

import (
	"bytes"
	"io"
	"net/http/httptest"
	"testing"
)

// FuzzVerify checks that Verify never panics and accepts a token only when
// it is exactly what the secret makes of the token's salt.
func FuzzVerify(f *testing.F) {
	f.Add("4mUiXfQ5qbIrV2JXTUJb2Ddp", "abcdefgh-AnX3tV4WNdxhSqqsKfU0VNrA6ls")
	f.Add("s", "-")
	f.Add("", "a-b")
	f.Add("secret", "é-\x00")
	f.Fuzz(func(t *testing.T, secret, token string) {
		ok := Verify(secret, token)
		if ok {
			salt, _, _ := bytes.Cut([]byte(token), []byte("-"))
			if tokenize(string(salt), secret) != token || secret == "" {
				t.Errorf("Verify(%q, %q) = true for a token the secret did not make", secret, token)
			}
		}
		if secret != "" && !Verify(secret, NewToken(secret)) {
			t.Errorf("Verify(%q, NewToken) = false", secret)
		}
	})
}

// FuzzExtract checks that reading a token from any body, content type and
// query never panics and leaves the body intact for the handler.
func FuzzExtract(f *testing.F) {
	f.Add("application/json", `{"_csrf":"t"}`, "_csrf=q")
	f.Add("application/x-www-form-urlencoded", "_csrf=t&a[b]=1", "")
	f.Add("multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\nt\r\n--x--\r\n", "")
	f.Add("application/json; charset=latin1", "\xff", "_csrf[a]=1")
	f.Fuzz(func(t *testing.T, ct, body, query string) {
		r := httptest.NewRequest("POST", "/", bytes.NewReader([]byte(body)))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", ct)
		_ = Extract(r, 256)
		rest, err := io.ReadAll(r.Body)
		if err != nil || string(rest) != body {
			t.Errorf("body after Extract = %q, %v; want %q", rest, err, body)
		}
	})
}
