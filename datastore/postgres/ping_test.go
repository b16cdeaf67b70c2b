package postgres_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/testenv"
)

func TestPingAndDescribe(t *testing.T) {
	db := open(t)
	if err := db.Ping(t.Context()); err != nil {
		t.Fatalf("Ping = %v", err)
	}
	got := db.Describe()
	if !strings.HasPrefix(got, "postgres ") {
		t.Errorf("Describe() = %q, want it to start with postgres", got)
	}
	if u, err := url.Parse(testenv.Postgres(t)); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" && strings.Contains(got, p) {
			t.Errorf("Describe() = %q shows the password", got)
		}
		if strings.Contains(got, u.User.Username()+"@") {
			t.Errorf("Describe() = %q shows the user", got)
		}
	}
	db.Close()
	if err := db.Ping(t.Context()); err == nil {
		t.Error("Ping after Close = nil, want an error")
	}
}
