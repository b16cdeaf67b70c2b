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
	opts, err := skiff.LoadApp(ctx, *dir, *env, environ)
	if err != nil {
		return err
	}
	// log.level (or SKIFF_LOG__LEVEL) decides; silent is a level no record reaches.
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: opts.LogLevel}))
	if *host == "" {
		*host = opts.Host
	}
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		for _, d := range opts.Datastores {
			_ = d.Close()
		}
		return err
	}
	defer app.Close()

	p, err := resolvePort(*port, getenv("PORT"), opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(p)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintf(stdout, "skiff %s listening on http://%s\n", version, ln.Addr())
	fmt.Fprintf(stdout, "environment: %s\n", app.Env())
	fmt.Fprintf(stdout, "datastores: %s\n", strings.Join(app.Datastores(), ", "))
	fmt.Fprintf(stdout, "models: %d\n", len(app.Models()))
	if err := app.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "skiff stopped")
	return nil
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
