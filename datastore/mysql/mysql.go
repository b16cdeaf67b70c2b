// Package mysql is Skiff's MySQL and MariaDB datastore adapter, on
// github.com/go-sql-driver/mysql, for MySQL 8.0 or later and MariaDB 10.5
// or later.
//
// Strings are utf8mb4 throughout: the connection's character set, and the
// tables Define creates, whose collation compares bytes without padding
// (utf8mb4_nopad_bin on MariaDB, utf8mb4_0900_bin on MySQL), so that =,
// sorting and unique keys are case-sensitive as on SQLite and PostgreSQL.
// like and its kin compare bytes whatever the collation (see sqlgen.MySQL).
//
// Sessions run at READ COMMITTED, as on PostgreSQL: statements see the rows
// committed before they began, and locking reads lock no gaps, so
// concurrent inserts do not deadlock on them. InnoDB still reports a
// deadlock now and then (unique checks take locks of their own); InTx then
// runs its function again in a new transaction, a few times, before it
// gives up (see InTx).
//
// Parameters are interpolated by the driver (interpolateParams) so that a
// statement costs one round trip, not a prepare, an execute and a close;
// several statements may travel together (multiStatements), which
// population, locking, creates and deferred writes use to save round
// trips. On MariaDB a create is one INSERT ... RETURNING; MySQL has no
// RETURNING, and reads the row back in the same round trip.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/internal/sqlgen"
)

// DB is a MySQL or MariaDB datastore over a connection pool. It is safe for
// concurrent use.
type DB struct {
	d    *sqlgen.Dialect
	pool *sql.DB
	// collation is the collation of the tables Define creates.
	collation string
	mariaDB   bool
	// inserts is the dialect of INSERTs that return their row (MariaDB's
	// INSERT ... RETURNING), or nil where there is none (MySQL).
	inserts *sqlgen.Dialect
	closed  atomic.Bool
	// indexes holds, by table name, the names of the indexes Define made
	// or found (map[string]bool), which writes may name in a hint.
	indexes sync.Map
}

var (
	_ datastore.Adapter       = (*DB)(nil)
	_ datastore.ThroughFinder = (*DB)(nil)
	_ datastore.ThroughFinder = (*session)(nil)
	_ datastore.Locker        = (*session)(nil)
	_ datastore.JoinFinder    = (*DB)(nil)
	_ datastore.JoinFinder    = (*session)(nil)
)

// sqlMode is the sql_mode the adapter sets on every connection it opens,
// whatever the server's global mode (the driver sends it with the
// session settings, before the pool hands the connection out):
//   - STRICT_ALL_TABLES: a value that does not fit its column (a string too
//     long, a number out of range, a date that is no date) is an error,
//     which the adapter answers with a 400, never a silent truncation;
//   - NO_ZERO_DATE, NO_ZERO_IN_DATE, ERROR_FOR_DIVISION_BY_ZERO: the same
//     for the zero date and x/0, where MySQL would otherwise store a value
//     no other engine has (MySQL 8's default, deprecated there as separate
//     flags but accepted);
//   - ONLY_FULL_GROUP_BY: no statement groups; it is MySQL 8's default,
//     and keeping it means a future one is checked as on MySQL 8;
//   - NO_ENGINE_SUBSTITUTION: a table is InnoDB or is not created.
//
// Setting the whole mode also clears what a server's global mode may add
// that changes how statements read: ANSI_QUOTES, PIPES_AS_CONCAT, and
// NO_BACKSLASH_ESCAPES, which would break the LIKE ... ESCAPE '\\' of
// sqlgen and the driver's quoting of parameters.
const sqlMode = "'ONLY_FULL_GROUP_BY,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'"

// ownParams are the session variables the adapter sets itself; a url may
// not name them.
var ownParams = []string{"sql_mode", "transaction_isolation", "tx_isolation"}

// Open connects to the database cfg.URL names and checks that it answers.
// The URL is mysql://user:password@host:port/database?param=value or
// mariadb://… (the same); parameters are those of go-sql-driver/mysql
// (tls=true|skip-verify|preferred, timeout=5s, ...), and ssl=true is
// taken as tls=true. A go-sql-driver DSN (user@tcp(host:3306)/db) is
// accepted too. The datastore setting ssl (true, or sails-mysql's object
// with rejectUnauthorized: false) asks for TLS as well.
func Open(ctx context.Context, cfg datastore.Config) (*DB, error) {
	mc, err := parseConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("open mysql: %w", err)
	}
	where := mc.User + "@" + mc.Addr + "/" + mc.DBName
	version, err := serverVersion(ctx, mc)
	if err != nil {
		return nil, fmt.Errorf("open mysql %s: %w", where, explain(err, mc))
	}
	db := &DB{d: sqlgen.MySQL(), mariaDB: strings.Contains(strings.ToLower(version), "mariadb")}
	isolation := "transaction_isolation"
	switch {
	case db.mariaDB:
		// transaction_isolation is MariaDB 11.1's name; tx_isolation
		// works on every version.
		db.collation, isolation = "utf8mb4_nopad_bin", "tx_isolation"
	case versionAtLeast(version, 8, 0, 17):
		db.collation = "utf8mb4_0900_bin"
	default:
		return nil, fmt.Errorf("open mysql %s: server version %s is not supported (MySQL 8.0.17 or later, MariaDB 10.5 or later)", where, version)
	}
	if db.mariaDB && !versionAtLeast(version, 10, 5, 0) {
		return nil, fmt.Errorf("open mysql %s: server version %s is not supported (MariaDB 10.5 or later)", where, version)
	}
	if db.mariaDB {
		inserts := *db.d
		inserts.Returning = true
		db.inserts = &inserts
	}
	mc.Params[isolation] = "'READ-COMMITTED'"
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("open mysql %s: %w", where, err)
	}
	db.pool = sql.OpenDB(connector)
	// Idle connections are kept: a new one costs a handshake and the
	// session settings, several round trips.
	// The pool is bounded, well under the servers' default of 151
	// connections: a burst of requests queues here rather than failing
	// with "Too many connections". A transaction holds one connection
	// and never asks for a second.
	n := max(16, 8*runtime.GOMAXPROCS(0))
	db.pool.SetMaxOpenConns(n)
	db.pool.SetMaxIdleConns(n)
	db.pool.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.pool.PingContext(ctx); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("open mysql %s: %w", where, explain(err, mc))
	}
	return db, nil
}

// serverVersion connects once with mc and returns VERSION().
func serverVersion(ctx context.Context, mc *mysql.Config) (string, error) {
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		return "", err
	}
	probe := sql.OpenDB(connector)
	defer probe.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var v string
	if err := probe.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", err
	}
	return v, nil
}

// versionAtLeast reports whether the version string v (8.0.36,
// 10.11.6-MariaDB-0+deb12u1) is at least major.minor.patch.
func versionAtLeast(v string, major, minor, patch int) bool {
	var a, b, c int
	fmt.Sscanf(v, "%d.%d.%d", &a, &b, &c)
	switch {
	case a != major:
		return a > major
	case b != minor:
		return b > minor
	}
	return c >= patch
}

// explain adds what to do to the errors a new user meets first.
func explain(err error, mc *mysql.Config) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1045:
			return fmt.Errorf("wrong user name or password (check the url's user:password): %w", err)
		case 1049:
			return fmt.Errorf("database %q does not exist (create it: CREATE DATABASE `%s` CHARACTER SET utf8mb4): %w", mc.DBName, mc.DBName, err)
		case 1044:
			return fmt.Errorf("user %q may not use database %q: %w", mc.User, mc.DBName, err)
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("cannot reach the server at %s (is it running, and is the url's host:port right?): %w", mc.Addr, err)
	}
	return err
}

// parseConfig reads cfg.URL and cfg.Options into a driver configuration
// with the settings the adapter relies on.
func parseConfig(cfg datastore.Config) (*mysql.Config, error) {
	if cfg.URL == "" {
		cfg.URL = urlFromKeys(cfg.Options)
	}
	if cfg.URL == "" {
		return nil, errors.New("datastore url is required (mysql://user:password@host:3306/database)")
	}
	var mc *mysql.Config
	var err error
	if scheme, _, ok := strings.Cut(cfg.URL, "://"); ok {
		mc, err = fromURL(scheme, cfg.URL)
	} else {
		mc, err = mysql.ParseDSN(cfg.URL)
	}
	if err != nil {
		return nil, err
	}
	if mc.DBName == "" {
		return nil, errors.New("the datastore url names no database (mysql://user:password@host:3306/database)")
	}
	if err := sslOption(mc, cfg.Options); err != nil {
		return nil, err
	}
	if mc.Params == nil {
		mc.Params = map[string]string{}
	}
	// The driver keeps charset to itself: read it from the url.
	if _, query, ok := strings.Cut(cfg.URL, "?"); ok {
		params, _ := url.ParseQuery(query)
		for k, vs := range params {
			for _, v := range vs {
				if (strings.EqualFold(k, "charset") || strings.EqualFold(k, "collation")) && !strings.HasPrefix(strings.ToLower(v), "utf8mb4") {
					return nil, fmt.Errorf("url parameter %s=%s: Skiff talks utf8mb4 to MySQL, leave it out", k, v)
				}
			}
		}
	}
	for k := range mc.Params {
		for _, own := range ownParams {
			if strings.EqualFold(k, own) {
				return nil, fmt.Errorf("url parameter %s: Skiff sets it on every connection (a strict sql_mode, READ COMMITTED), leave it out", k)
			}
		}
	}
	mc.Collation = "utf8mb4_general_ci"
	mc.InterpolateParams = true
	mc.MultiStatements = true
	mc.ParseTime = false
	mc.Params["sql_mode"] = sqlMode
	if mc.Timeout == 0 {
		mc.Timeout = 10 * time.Second
	}
	return mc, nil
}

// urlFromKeys builds a URL from sails-mysql's separate settings host,
// port, user, password and database, or returns "" when database is not
// set. Keys match in any case (an environment variable's name comes
// lower-cased).
func urlFromKeys(options map[string]any) string {
	get := func(name string) string {
		for k, v := range options {
			if strings.EqualFold(k, name) && v != nil {
				return fmt.Sprint(v)
			}
		}
		return ""
	}
	db := get("database")
	if db == "" {
		return ""
	}
	host, port, user := get("host"), get("port"), get("user")
	if host == "" || host == "localhost" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "3306"
	}
	if user == "" {
		user = "root"
	}
	u := &url.URL{Scheme: "mysql", Host: net.JoinHostPort(host, port), Path: "/" + db, User: url.User(user)}
	if pass := get("password"); pass != "" {
		u.User = url.UserPassword(user, pass)
	}
	return u.String()
}

// fromURL reads a mysql:// or mariadb:// URL.
func fromURL(scheme, raw string) (*mysql.Config, error) {
	if scheme != "mysql" && scheme != "mariadb" {
		return nil, fmt.Errorf("url scheme %q: want mysql:// or mariadb://", scheme)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("datastore url: %w", err)
	}
	q := u.Query()
	if v := q.Get("ssl"); v != "" {
		// sails-mysql's spelling.
		q.Del("ssl")
		if v != "false" && q.Get("tls") == "" {
			q.Set("tls", "true")
		}
	}
	host := u.Hostname()
	if host == "" {
		host = "127.0.0.1"
	}
	port := u.Port()
	if port == "" {
		port = "3306"
	}
	dsn := "tcp(" + net.JoinHostPort(host, port) + ")/" + url.PathEscape(strings.TrimPrefix(u.Path, "/"))
	if len(q) > 0 {
		dsn += "?" + q.Encode()
	}
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("datastore url: %w", err)
	}
	mc.DBName = strings.TrimPrefix(u.Path, "/")
	if u.User != nil {
		mc.User = u.User.Username()
		mc.Passwd, _ = u.User.Password()
	}
	if mc.User == "" {
		mc.User = "root"
	}
	return mc, nil
}

// sslOption applies the datastore setting ssl: true (TLS, verified), false,
// or sails-mysql's object, where rejectUnauthorized: false skips the
// verification.
func sslOption(mc *mysql.Config, options map[string]any) error {
	for k, v := range options {
		if !strings.EqualFold(k, "ssl") {
			continue
		}
		switch x := v.(type) {
		case bool:
			if x {
				mc.TLSConfig = "true"
			}
		case map[string]any:
			mc.TLSConfig = "true"
			for k, v := range x {
				r, ok := v.(bool)
				switch {
				case k != "rejectUnauthorized":
					return fmt.Errorf("ssl.%s is not supported: the server's certificate must be signed by an authority the system trusts, or set rejectUnauthorized: false", k)
				case !ok:
					return fmt.Errorf("ssl.rejectUnauthorized must be true or false, not %v", v)
				case !r:
					mc.TLSConfig = "skip-verify"
				}
			}
		default:
			return fmt.Errorf("ssl must be true, false or an object like {rejectUnauthorized: false}, not %v", v)
		}
		// NormalizeConfig turns the name into the tls.Config it names.
		c, err := mysql.ParseDSN(mc.FormatDSN())
		if err != nil {
			return fmt.Errorf("ssl: %w", err)
		}
		*mc = *c
	}
	return nil
}

// Close closes the pool. Later calls return nil; other methods then return
// datastore.ErrClosed.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	if err := db.pool.Close(); err != nil {
		return fmt.Errorf("close mysql: %w", err)
	}
	return nil
}

func (db *DB) check() error {
	if db.closed.Load() {
		return datastore.ErrClosed
	}
	return nil
}
