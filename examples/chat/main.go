// Command chat is the example of a Sails front end running on Skiff
// unchanged: a chat whose page logs in over its socket and shows live
// messages with their sender's name, as a Sails 1.5 app does. The models
// and config are an ordinary app folder; the login, logout and me actions
// and the isLoggedIn policy are Go (chat.go), as an app's controllers and
// policies are JavaScript in Sails.
//
// Run it from the repository's root:
//
//	go run ./examples/chat
//
// then open http://localhost:1337/ in two browsers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "chat:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("app", "examples/chat", "the app folder (models/, config/, assets/)")
	port := fs.Int("port", 1337, "the port to listen on")
	env := fs.String("env", "development", "the environment")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	log := skiff.NewTextLogger(stderr, slog.LevelInfo)
	app, err := newApp(ctx, *dir, *env, environ, log)
	if err != nil {
		return err
	}
	defer app.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort("", strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintf(stdout, "chat listening on http://%s\n", ln.Addr())
	return app.Serve(ctx, ln)
}

// newApp loads the app folder dir and adds the chat's Go parts.
func newApp(ctx context.Context, dir, env string, environ []string, log *slog.Logger) (*skiff.App, error) {
	opts, err := app.Load(ctx, dir, env, environ)
	if err != nil {
		return nil, err
	}
	opts.Logger = log
	c := &chat{}
	c.configure(opts)
	app, err := skiff.New(ctx, *opts)
	if err != nil {
		for _, d := range opts.Datastores {
			_ = d.Close()
		}
		return nil, err
	}
	c.app = app
	return app, nil
}
