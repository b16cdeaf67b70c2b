package config

import "errors"

// Errors returned by Load, wrapped with the file, key path or environment
// variable they concern; test them with errors.Is.
var (
	// ErrSyntax reports a file that does not parse, or whose top level is
	// not a mapping.
	ErrSyntax = errors.New("syntax error")
	// ErrDuplicateModel reports two model files that give the same identity.
	ErrDuplicateModel = errors.New("duplicate model")
	// ErrUnknownKey reports a top-level section or a key inside a section
	// that Skiff does not know.
	ErrUnknownKey = errors.New("unknown key")
	// ErrUnsupported reports a setting that Sails 1.x removed or that Skiff
	// cannot take from a file (functions, views, JSONP).
	ErrUnsupported = errors.New("unsupported setting")
	// ErrInvalid reports a known setting with a value of the wrong type or
	// form: a bad route, port, body limit, prefix, environment name, ...
	ErrInvalid = errors.New("invalid setting")
)
