// Package config reads a Skiff app folder: the model files under models/ and
// the Sails-style configuration under config/. docs/config.md lists every
// section, its keys and defaults.
//
// # Files
//
// models/<Name>.yaml (or .yml, .json) holds one model; its identity is the
// lower-cased base name, and two files with the same identity are an error.
// Names starting with "." and other extensions are skipped.
//
// config/*.yaml (.yml, .json) each hold a mapping of sections: models,
// blueprints, datastores, routes, security, sockets, session, policies, http
// and port, and Sails' other sections (log, custom, views, i18n, globals,
// hooks, paths, environment, explicitHost, ssl, proxyHost, proxyPort,
// hookTimeout). Layers are deep-merged in this order, later winning:
//
//  1. config/* except local.*, in file-name order;
//  2. config/env/<env>.* (env defaults to "development");
//  3. config/local.*;
//  4. SKIFF_* environment variables.
//
// Mappings merge key by key (a new key is appended, so routes keep the order
// they were first written in); lists and scalars replace; a null removes
// the key, returning it to its default. An unknown section or key, or a
// setting Sails 1.x removed, is an error naming the file and the key path.
//
// No setting is accepted and then silently ignored: once merged, each is
// read into App, or judged (audit.go) as harmless, which adds one entry to
// App.Warnings, or as misleading, which fails Load with ErrUnsupported.
//
// # Environment variables
//
// Load receives the environment as "NAME=value" pairs (os.Environ). A
// variable SKIFF_<SECTION>[__<KEY>[__<KEY>...]] sets the value at that key
// path, as if a last config file held it:
//
//	SKIFF_PORT=8080
//	SKIFF_BLUEPRINTS__SHORTCUTS=false
//	SKIFF_BLUEPRINTS__RESTPREFIX=/v2
//	SKIFF_DATASTORES__DEFAULT__URL=postgres://u:p@db/app
//	SKIFF_SECURITY__CORS__ALLOWORIGINS=[https://a.example, https://b.example]
//	SKIFF_POLICIES='{"*": true, user/destroy: false}'
//
// Names split at double underscores. The whole name matches
// case-insensitively: each segment becomes the key already present at that
// place in the merged files that equals it ignoring case, else the known key
// (docs/config.md) that does (RESTPREFIX is restPrefix), else, inside a
// free-form mapping (datastores, a datastore's adapter settings,
// models.attributes, policies, routes, http.middleware, custom, ...), the segment
// lower-cased (SKIFF_DATASTORES__REPLICA__URL creates datastores.replica).
// A segment that matches nothing in a mapping with fixed keys is an error
// naming the variable, as is a key below a scalar. Variables whose first
// segment is not a section (SKIFF_ENV, SKIFF_TEST_POSTGRES_URL) are not
// configuration and are ignored, as are empty values. Route addresses and
// policy targets cannot be spelled in a name: set SKIFF_ROUTES or
// SKIFF_POLICIES as a whole.
//
// The value is read as YAML: a value starting with "[" or "{" must be a flow
// list or mapping; otherwise true, false, numbers and null are read as such,
// a quoted value ('"123"') as the string inside the quotes, and anything
// else is kept as the raw string (so "postgres://u:p@h/db" and "a #b" stay
// intact). null removes the key. A mapping merges into what the files set;
// anything else replaces it. Variables apply after config/local.*, fewer
// segments first (then by name), so SKIFF_DATASTORES__DEFAULT__URL wins over
// a url inside SKIFF_DATASTORES. Values are checked like file values, and
// errors name the variable.
//
// PORT (without prefix) is read by the command, not here.
package config
