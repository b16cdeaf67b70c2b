// Package testenv gives tests the external services and tools they need
// (PostgreSQL, MySQL, Redis, Node.js) from the environment. One that cannot
// be reached skips the test locally and fails it when CI=true, so a broken
// service in CI never turns silently into skipped tests.
package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// Environment variables naming the services, and their defaults.
const (
	PostgresEnv     = "SKIFF_TEST_POSTGRES_URL"
	PostgresDefault = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	MySQLEnv        = "SKIFF_TEST_MYSQL_DSN"
	MySQLDefault    = "root@tcp(127.0.0.1:3306)/test"
	RedisEnv        = "SKIFF_TEST_REDIS_ADDR"
	RedisDefault    = "127.0.0.1:6379"
	NATSEnv         = "SKIFF_TEST_NATS_URL"
	NATSDefault     = "nats://127.0.0.1:4222"
)

func getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// unavailable skips t, or fails it under CI=true.
func unavailable(t testing.TB, service, env string, err error) {
	t.Helper()
	missing(t, fmt.Sprintf("%s unavailable (set %s to point at one): %v", service, env, err))
}

// missing skips t with msg, or fails it under CI=true.
func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Postgres returns the URL of an empty schema of its own on the server
// named by SKIFF_TEST_POSTGRES_URL: the schema is created with a unique
// name, the URL's search_path points at it, and t.Cleanup drops it.
func Postgres(t testing.TB) string {
	t.Helper()
	base := getenv(PostgresEnv, PostgresDefault)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		unavailable(t, "PostgreSQL", PostgresEnv, err)
	}
	defer conn.Close(context.Background())
	schema := "skiff_test_" + randomHex(8)
	ident := pgx.Identifier{schema}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+ident); err != nil {
		t.Fatalf("testenv: create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("testenv: drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP SCHEMA "+ident+" CASCADE"); err != nil {
			t.Errorf("testenv: drop schema %s: %v", schema, err)
		}
	})
	u, err := withSearchPath(base, schema)
	if err != nil {
		t.Fatalf("testenv: %s: %v", PostgresEnv, err)
	}
	return u
}

// withSearchPath adds search_path to a URL or keyword/value connection string.
func withSearchPath(base, schema string) (string, error) {
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	return base + " search_path=" + schema, nil
}

// Node returns the path of the node binary, for tests that run scripts
// with the JavaScript packages installed in dir (dir/node_modules, from
// `npm ci`). Without node or those packages the test is skipped, or fails
// under CI=true.
func Node(t testing.TB, dir string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules"))
	}
	if err != nil {
		missing(t, fmt.Sprintf("Node.js clients unavailable (install node and npm, then run `npm ci --prefix %s`): %v", dir, err))
	}
	return node
}

// MySQL returns the DSN (go-sql-driver form) in SKIFF_TEST_MYSQL_DSN once
// its server answers on TCP. It does not isolate the database.
func MySQL(t testing.TB) string {
	t.Helper()
	dsn := getenv(MySQLEnv, MySQLDefault)
	addr := "127.0.0.1:3306"
	if i := strings.Index(dsn, "tcp("); i >= 0 {
		if j := strings.Index(dsn[i:], ")"); j > 0 {
			addr = dsn[i+4 : i+j]
		}
	}
	if err := dial(addr); err != nil {
		unavailable(t, "MySQL", MySQLEnv, err)
	}
	return dsn
}

// MySQLDatabase returns a mysql:// URL of an empty database of its own on
// the server SKIFF_TEST_MYSQL_DSN names (MySQL or MariaDB): the database is
// created with a unique name and t.Cleanup drops it.
func MySQLDatabase(t testing.TB) string {
	t.Helper()
	base := MySQL(t)
	mc, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("testenv: %s: %v", MySQLEnv, err)
	}
	mc.DBName = ""
	name := "skiff_test_" + randomHex(8)
	run := func(stmt string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		connector, err := mysql.NewConnector(mc)
		if err != nil {
			return err
		}
		db := sql.OpenDB(connector)
		defer db.Close()
		_, err = db.ExecContext(ctx, stmt)
		return err
	}
	if err := run("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4"); err != nil {
		unavailable(t, "MySQL", MySQLEnv, err)
	}
	t.Cleanup(func() {
		if err := run("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
			t.Errorf("testenv: drop database %s: %v", name, err)
		}
	})
	u := &url.URL{Scheme: "mysql", Host: mc.Addr, Path: "/" + name}
	if mc.Passwd != "" {
		u.User = url.UserPassword(mc.User, mc.Passwd)
	} else {
		u.User = url.User(mc.User)
	}
	return u.String()
}

// MySQLLaxServer empties the global sql_mode of the server
// SKIFF_TEST_MYSQL_DSN names (not strict: values that do not fit are cut
// or clamped, with a warning) until t ends, then sets it back, so that a
// test can check that a client makes its own sessions strict. The new mode
// applies to connections opened from now on. Tests doing this queue on a
// server-wide lock, so two never overlap and the mode put back is the one
// found; a test process killed in between leaves the server lax.
func MySQLLaxServer(t testing.TB) {
	t.Helper()
	mc, err := mysql.ParseDSN(MySQL(t))
	if err != nil {
		t.Fatalf("testenv: %s: %v", MySQLEnv, err)
	}
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		t.Fatalf("testenv: %s: %v", MySQLEnv, err)
	}
	db := sql.OpenDB(connector)
	ctx := context.Background()
	// GET_LOCK belongs to the connection: keep one until the end.
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		unavailable(t, "MySQL", MySQLEnv, err)
	}
	done := func() {
		conn.Close()
		db.Close()
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('skiff_testenv_global_sql_mode', 300)").Scan(&got); err != nil || got.Int64 != 1 {
		done()
		t.Fatalf("testenv: lock the server's global sql_mode: %v (GET_LOCK = %v)", err, got)
	}
	var old string
	if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.sql_mode").Scan(&old); err != nil {
		done()
		t.Fatalf("testenv: read the global sql_mode: %v", err)
	}
	if _, err := conn.ExecContext(ctx, "SET GLOBAL sql_mode = ''"); err != nil {
		done()
		missing(t, fmt.Sprintf("testenv: %s may not SET GLOBAL sql_mode: %v", mc.User, err))
	}
	t.Cleanup(func() {
		defer done()
		if _, err := conn.ExecContext(ctx, "SET GLOBAL sql_mode = ?", old); err != nil {
			t.Errorf("testenv: put the global sql_mode back to %q: %v", old, err)
		}
	})
}

// Redis returns the address in SKIFF_TEST_REDIS_ADDR once it answers on TCP.
func Redis(t testing.TB) string {
	t.Helper()
	addr := getenv(RedisEnv, RedisDefault)
	if err := dial(addr); err != nil {
		unavailable(t, "Redis", RedisEnv, err)
	}
	return addr
}

// NATS returns the URL in SKIFF_TEST_NATS_URL once its server answers on
// TCP.
func NATS(t testing.TB) string {
	t.Helper()
	u := getenv(NATSEnv, NATSDefault)
	p, err := url.Parse(u)
	if err == nil {
		err = dial(p.Host)
	}
	if err != nil {
		unavailable(t, "NATS", NATSEnv, err)
	}
	return u
}

// Prefix returns a name no other test uses, for a test's own Redis channel
// or NATS subject.
func Prefix() string { return "skifftest" + randomHex(6) }

func dial(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
