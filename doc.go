// Package skiff is the embedding API of Skiff, a server that gives an
// application's models a Sails.js 1.x compatible blueprint REST API.
//
// An application is either a folder (models/*.yaml, config/*.yaml; see
// package app and the README) served by the skiff command, or a Go program
// that builds Options itself (or loads a folder with app.Load and adds Go
// hooks) and calls New, then App.Serve; app's ExampleLoad shows the whole
// path. This package links no storage driver and no Redis or NATS client:
// the program passes open adapters (sqlite.Open, postgres.Open, ...) in
// Options.Datastores, and a bus in Sockets.Bus.
package skiff
