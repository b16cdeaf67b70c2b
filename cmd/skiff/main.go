// Command skiff serves a Skiff app folder: `skiff serve --app DIR --port N`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "skiff:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  skiff serve [--app DIR] [--port N] [--env NAME]   serve an app folder
              [--host ADDR] [--log-level L] [--log-format text|json]
              [--admin ADDR] [--drop-columns TABLE.COLUMN,...]
  skiff migrate [--app DIR] [--env NAME] [--dry-run]   print (and make) the schema changes
                [--migrate alter|drop] [--drop-columns TABLE.COLUMN,...]
  skiff openapi [--app DIR] [--env NAME]            print the API's OpenAPI 3.1 description
  skiff new DIR                                     write a new app folder
  skiff version                                     print the version and VCS revision
`

// run is the whole command, with its environment ("NAME=value" pairs)
// passed in so tests can call it directly.
func run(ctx context.Context, args []string, environ []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], environ, stdout, stderr)
	case "migrate":
		return migrateCmd(ctx, args[1:], environ, stdout, stderr)
	case "openapi":
		return openapiCmd(ctx, args[1:], environ, stdout, stderr)
	case "new":
		return newApp(args[1:], stdout)
	case "version", "--version", "-v":
		printVersion(stdout)
		return nil
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
