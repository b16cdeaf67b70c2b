package model

import (
	"regexp"
	"strings"
)

// MaxKeyLength bounds the length of an undeclared key of a schemaless model.
const MaxKeyLength = 64

// keyPattern is the ASCII subset of the ECMAScript 5.1 identifiers Waterline
// accepts as attribute names (is-valid-attribute-name.js). It is narrower
// than Waterline's (no non-ASCII letters) on purpose: undeclared keys are
// client-controlled and end up in JSON paths, so only characters that mean
// nothing to any path syntax are let through.
var keyPattern = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// reservedWords are the ECMAScript words Waterline refuses as attribute
// names. Read-only.
var reservedWords = wordSet(`do if in for let new try var case else enum eval false null this true
	void with break catch class const super throw while yield delete export import public return
	static switch typeof default extends finally package private continue debugger function
	arguments interface protected implements instanceof`)

func wordSet(list string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(list) {
		set[w] = true
	}
	return set
}

// ValidKey reports whether name may be used as an undeclared key of a
// schemaless model (in a record, a where clause or a sort): an ASCII
// JavaScript identifier of at most MaxKeyLength characters that is not a
// reserved word, nor toJSON or toObject in any case, as Waterline requires
// of attribute names. Such a key contains no quote, dot, bracket, space or
// backslash, so it can be placed in a JSON path safely.
func ValidKey(name string) bool {
	if len(name) == 0 || len(name) > MaxKeyLength || !keyPattern.MatchString(name) || reservedWords[name] {
		return false
	}
	return !strings.EqualFold(name, "toJSON") && !strings.EqualFold(name, "toObject")
}
