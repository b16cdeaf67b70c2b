package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/app"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/orm"
)

// migrateCmd is `skiff migrate`: print the schema changes the app's models
// ask for and, without --dry-run, make them.
func migrateCmd(ctx context.Context, args []string, environ []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("app", ".", "the app folder (models/, config/)")
	env := fs.String("env", "", "the environment (default: $SKIFF_ENV or development)")
	dryRun := fs.Bool("dry-run", false, "print the changes and make none")
	strategy := fs.String("migrate", "", "alter or drop: this strategy for every model instead of each model's own")
	drops := fs.String("drop-columns", "", "table.column,...: columns holding data that alter may drop")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("migrate: unexpected argument %q", fs.Arg(0))
	}
	if *env == "" {
		*env = lookupEnv(environ, "SKIFF_ENV")
	}
	opts, err := app.LoadDatastores(ctx, *dir, *env, environ)
	if err != nil {
		return err
	}
	defer func() { _ = app.Close(opts) }()
	switch model.Migrate(*strategy) {
	case "":
	case model.MigrateAlter, model.MigrateDrop, model.MigrateSafe:
		for _, m := range opts.Models {
			m.Migrate = model.Migrate(*strategy)
		}
	default:
		return fmt.Errorf("migrate: --migrate must be alter, drop or safe, not %q", *strategy)
	}
	opts.DropColumns = splitList(*drops)
	if *dryRun {
		steps, err := skiff.PlanMigration(ctx, *opts)
		if err != nil {
			return err
		}
		printPlan(stdout, steps, "would ")
		return skiff.CheckMigration(steps, opts.DropColumns)
	}
	steps, err := skiff.Migrate(ctx, *opts)
	if err != nil {
		return err
	}
	printPlan(stdout, steps, "")
	return nil
}

// printPlan writes each datastore's changes, one a line.
func printPlan(w io.Writer, steps []orm.MigrationStep, would string) {
	n := 0
	for _, s := range steps {
		if s.Unplanned {
			fmt.Fprintf(w, "datastore %s (%s): its adapter cannot list changes\n", s.Datastore, s.Mode)
			n++
			continue
		}
		if len(s.Changes) == 0 {
			continue
		}
		fmt.Fprintf(w, "datastore %s (%s):\n", s.Datastore, s.Mode)
		for _, c := range s.Changes {
			fmt.Fprintf(w, "  %s%s\n", would, c)
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "the schema matches the models: nothing to change")
	}
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// lookupEnv returns the value of name in environ ("NAME=value" pairs).
func lookupEnv(environ []string, name string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}
