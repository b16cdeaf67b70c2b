package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
)

func serve(ctx context.Context, args []string, environ []string, stdout, stderr io.Writer) error {
	getenv := func(name string) string {
		for _, kv := range environ {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name {
				return v
			}
		}
		return ""
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("app", ".", "the app folder (models/, config/)")
	port := fs.Int("port", -1, "the port to listen on (default: $PORT, the config's port, or 1337)")
	env := fs.String("env", "", "the environment (default: $SKIFF_ENV or development)")
	host := fs.String("host", "", "the address to listen on (default: the config's explicitHost, else all interfaces)")
	logLevel := fs.String("log-level", "", "silent, error, warn, info, verbose or silly (default: the config's log.level, else info)")
	logFormat := fs.String("log-format", "", "text or json (default: the config's log.format, else text)")
	adminAddr := fs.String("admin", "", "serve Prometheus /metrics and /debug/pprof/ on this address, e.g. 127.0.0.1:9090 (default: the config's admin.addr; none)")
	drops := fs.String("drop-columns", "", "table.column,...: columns holding data that migrate: alter may drop")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if *env == "" {
		*env = getenv("SKIFF_ENV")
	}
	if *env == "" {
		*env = "development"
	}
	// The flags win over the files and SKIFF_LOG__*: they go through the
	// same checks as the config's values.
	environ = override(environ, "SKIFF_LOG__LEVEL", *logLevel)
	environ = override(environ, "SKIFF_LOG__FORMAT", *logFormat)
	opts, err := app.Load(ctx, *dir, *env, environ)
	if err != nil {
		return err
	}
	logs := newLogWriter(stderr)
	defer logs.Close()
	opts.Logger = newLogger(logs, opts.LogLevel, opts.LogFormat)
	opts.DropColumns = splitList(*drops)
	if *host == "" {
		*host = opts.Host
	}
	// Listen before New, which migrates: a start that cannot serve (port
	// in use) must not have changed the database.
	if *adminAddr == "" {
		*adminAddr = opts.AdminAddr
	}
	ln, adminLn, err := listen(*port, getenv("PORT"), *host, *adminAddr, opts)
	if err != nil {
		_ = app.Close(opts)
		return err
	}
	var adm *admin
	if adminLn != nil {
		adm = newAdmin(adminLn)
		opts.Observer = adm.metrics
	} else {
		stopHeapSampling()
	}
	return serveOn(ctx, ln, adm, opts, stdout)
}

// listen opens the app's listener and, when adminAddr is set, the admin
// one; on error it leaves nothing open.
func listen(flagPort int, envPort, host, adminAddr string, opts *skiff.Options) (ln, adminLn net.Listener, err error) {
	p, err := resolvePort(flagPort, envPort, opts)
	if err != nil {
		return nil, nil, err
	}
	if ln, err = net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p))); err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	if adminAddr == "" {
		return ln, nil, nil
	}
	if adminLn, err = net.Listen("tcp", adminAddr); err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("admin listen: %w", err)
	}
	return ln, adminLn, nil
}

// serveOn builds the app and serves it on ln (and the admin listener,
// when adm is not nil) until ctx is done; it closes the listeners and the
// datastores.
func serveOn(ctx context.Context, ln net.Listener, adm *admin, opts *skiff.Options, stdout io.Writer) error {
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		ln.Close()
		if adm != nil {
			adm.ln.Close()
		}
		for _, d := range opts.Datastores {
			_ = d.Close()
		}
		return err
	}
	defer app.Close()
	fmt.Fprintf(stdout, "skiff %s listening on http://%s\n", versionString(), ln.Addr())
	printSummary(stdout, app)
	if adm != nil {
		stop := adm.serve(ctx, app, opts.Logger)
		defer stop()
		fmt.Fprintf(stdout, "admin: http://%s/metrics and /debug/pprof/\n", adm.ln.Addr())
	}
	if err := app.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "skiff stopped")
	return nil
}

// override returns environ with name set to value, replacing any setting
// of it (in any case); an empty value returns environ unchanged.
func override(environ []string, name, value string) []string {
	if value == "" {
		return environ
	}
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); !strings.EqualFold(k, name) {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// newLogger builds the command's logger: lines on w, text or JSON, at level.
func newLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
	}
	return skiff.NewTextLogger(w, level)
}

// printSummary says what the app serves: environment, models, routes,
// datastores (where each lives, never a password) and the socket layer.
func printSummary(w io.Writer, app *skiff.App) {
	fmt.Fprintf(w, "environment: %s\n", app.Env())
	names := make([]string, 0, len(app.Models()))
	for _, m := range app.Models() {
		names = append(names, m.Identity)
	}
	fmt.Fprintf(w, "models: %d (%s)\n", len(names), strings.Join(names, ", "))
	fmt.Fprintf(w, "routes: %d\n", app.RouteCount())
	info := app.DatastoreInfo()
	stores := make([]string, 0, len(info))
	for _, name := range app.Datastores() {
		stores = append(stores, name+" ("+info[name]+")")
	}
	fmt.Fprintf(w, "datastores: %s\n", strings.Join(stores, ", "))
	if app.Sockets().Disabled {
		fmt.Fprintln(w, "sockets: off")
	} else {
		fmt.Fprintln(w, "sockets: /socket.io/ (in-process: this instance only)")
	}
}

// resolvePort picks the flag, then $PORT, then the config's port, then 1337.
func resolvePort(flagPort int, envPort string, opts *skiff.Options) (int, error) {
	if flagPort >= 0 {
		return flagPort, nil
	}
	if envPort != "" {
		p, err := strconv.Atoi(envPort)
		if err != nil || p < 0 || p > 65535 {
			return 0, fmt.Errorf("PORT %q is not a port number", envPort)
		}
		return p, nil
	}
	if opts.Port > 0 {
		return opts.Port, nil
	}
	return 1337, nil
}
