// Package skiff is the embedding API of Skiff, a server that gives an
// application's models a Sails.js 1.x compatible blueprint REST API.
//
// An application is either a folder (models/*.yaml, config/*.yaml; see
// LoadApp and the README) served by the skiff command, or a Go program that
// builds Options itself and calls New:
//
//	opts, err := skiff.LoadApp(ctx, "myapp", "development", os.Getenv)
//	opts.ParseBlueprintOptions = myParser
//	app, err := skiff.New(ctx, *opts)
//	err = app.Serve(ctx, listener)
package skiff
