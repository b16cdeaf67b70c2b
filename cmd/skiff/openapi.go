package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/skiffhq/skiff/app"
)

// openapiCmd is `skiff openapi`: print the OpenAPI 3.1 document of the
// app's HTTP API, as GET /openapi.json serves it, without opening its
// datastores.
func openapiCmd(ctx context.Context, args []string, environ []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("app", ".", "the app folder (models/, config/)")
	env := fs.String("env", "", "the environment (default: $SKIFF_ENV or development)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("openapi: unexpected argument %q", fs.Arg(0))
	}
	if *env == "" {
		*env = lookupEnv(environ, "SKIFF_ENV")
	}
	doc, err := app.Describe(*dir, *env, environ)
	if err != nil {
		return err
	}
	_, err = stdout.Write(doc)
	return err
}
