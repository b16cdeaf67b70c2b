package mysql

import (
	"strings"
	"testing"

	"github.com/skiffhq/skiff/datastore"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		url, user, pass, addr, db, tls string
		options                        map[string]any
	}{
		{url: "mysql://root@127.0.0.1:3306/app", user: "root", addr: "127.0.0.1:3306", db: "app"},
		{url: "mariadb://u:p%40ss@db.example:3307/shop", user: "u", pass: "p@ss", addr: "db.example:3307", db: "shop"},
		{url: "mysql://u@db.example/app", user: "u", addr: "db.example:3306", db: "app"},
		{url: "mysql://u@[::1]:3306/app", user: "u", addr: "[::1]:3306", db: "app"},
		{url: "mysql://u@h/app?tls=skip-verify", user: "u", addr: "h:3306", db: "app", tls: "skip-verify"},
		{url: "mysql://u@h/app?ssl=true", user: "u", addr: "h:3306", db: "app", tls: "true"},
		{url: "mysql://u@h/app", user: "u", addr: "h:3306", db: "app", tls: "skip-verify", options: map[string]any{"ssl": map[string]any{"rejectUnauthorized": false}}},
		{url: "u:pw@tcp(h:3310)/dsn", user: "u", pass: "pw", addr: "h:3310", db: "dsn"},
		{user: "me", pass: "s/cr@t", addr: "db.example:3307", db: "app", options: map[string]any{"host": "db.example", "port": 3307.0, "user": "me", "password": "s/cr@t", "database": "app"}},
		{user: "root", addr: "127.0.0.1:3306", db: "app", options: map[string]any{"host": "localhost", "database": "app"}},
	}
	for _, tt := range tests {
		mc, err := parseConfig(datastore.Config{URL: tt.url, Options: tt.options})
		if err != nil {
			t.Errorf("parseConfig(%s) = %v", tt.url, err)
			continue
		}
		if mc.User != tt.user || mc.Passwd != tt.pass || mc.Addr != tt.addr || mc.DBName != tt.db || mc.TLSConfig != tt.tls {
			t.Errorf("parseConfig(%s) = user %q pass %q addr %q db %q tls %q, want %q %q %q %q %q",
				tt.url, mc.User, mc.Passwd, mc.Addr, mc.DBName, mc.TLSConfig, tt.user, tt.pass, tt.addr, tt.db, tt.tls)
		}
		if !mc.InterpolateParams || !mc.MultiStatements || mc.Params["sql_mode"] == "" {
			t.Errorf("parseConfig(%s): the adapter's own settings are missing: %+v", tt.url, mc)
		}
	}
	for _, bad := range []string{"postgres://h/db", "mysql://h", "mysql://h/app?charset=latin1", "mysql://h/app?sql_mode=%27%27", "u@tcp(h)/app?SQL_MODE=ANSI", "mysql://h/app?transaction_isolation=SERIALIZABLE"} {
		if _, err := parseConfig(datastore.Config{URL: bad}); err == nil {
			t.Errorf("parseConfig(%s) = nil error, want a refusal", bad)
		}
	}
}

func TestVersionAtLeast(t *testing.T) {
	for v, want := range map[string]bool{"8.0.36": true, "8.0.16": false, "5.7.44-log": false, "10.11.6-MariaDB-0+deb12u1": true, "8.4.0": true} {
		if got := versionAtLeast(v, 8, 0, 17); got != want && !strings.Contains(v, "MariaDB") {
			t.Errorf("versionAtLeast(%s, 8.0.17) = %v, want %v", v, got, want)
		}
	}
	if versionAtLeast("10.4.30-MariaDB", 10, 5, 0) || !versionAtLeast("10.5.0-MariaDB", 10, 5, 0) {
		t.Errorf("versionAtLeast gets MariaDB 10.5 wrong")
	}
}
