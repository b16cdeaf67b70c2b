// Package skiff is the embedding API of Skiff, a server that gives an
// application's models a Sails.js 1.x compatible blueprint REST API.
//
// An application is either a folder (models/*.yaml, config/*.yaml; see
// LoadApp and the README) served by the skiff command, or a Go program that
// builds Options itself (or loads a folder with LoadApp and adds Go hooks)
// and calls New, then App.Serve; ExampleLoadApp shows the whole path.
package skiff
