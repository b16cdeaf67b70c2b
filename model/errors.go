package model

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the client should be told.
type Kind uint8

// Error kinds. Internal is the zero value: anything unclassified.
const (
	Internal     Kind = iota // 500; the message is never shown to clients
	Invalid                  // 400: E_INVALID_CRITERIA, E_INVALID_NEW_RECORD, ...
	NotFound                 // 404
	Conflict                 // 409: the data is not as the request needs (E_TOO_MANY); a unique violation is Invalid with CodeUnique, 400 as in Sails
	Forbidden                // 403
	Unauthorized             // 401
	TooLarge                 // 413: request body over the limit
	Unsupported              // 415: a request body in an encoding Skiff cannot read
)

// String names the kind for logs and test messages.
func (k Kind) String() string {
	switch k {
	case Invalid:
		return "invalid"
	case NotFound:
		return "not found"
	case Conflict:
		return "conflict"
	case Forbidden:
		return "forbidden"
	case Unauthorized:
		return "unauthorized"
	case TooLarge:
		return "too large"
	case Unsupported:
		return "unsupported"
	}
	return "internal"
}

// Error codes sent to clients, as Waterline names them.
const (
	CodeInvalidCriteria      = "E_INVALID_CRITERIA"
	CodeInvalidPopulates     = "E_INVALID_POPULATES"
	CodeInvalidNewRecord     = "E_INVALID_NEW_RECORD"
	CodeInvalidValuesToSet   = "E_INVALID_VALUES_TO_SET"
	CodeInvalidAssociatedIDs = "E_INVALID_ASSOCIATED_IDS"
	CodeInvalidTargetIDs     = "E_INVALID_TARGET_RECORD_IDS"
	CodeInvalidBody          = "E_INVALID_BODY"
	CodeUnique               = "E_UNIQUE"
	CodeTooMany              = "E_TOO_MANY_RECORDS"
	CodeUsage                = "E_USAGE"
)

// Error is Skiff's classified error. Msg is safe to send to clients; Err is
// the cause, logged but never sent.
type Error struct {
	Kind Kind
	Code string
	Msg  string
	// Model and Attrs identify what a uniqueness or validation failure is
	// about (E_UNIQUE's modelIdentity and attrNames).
	Model string
	Attrs []string
	Err   error
}

// Error renders the code, the client message and the cause, for logs.
func (e *Error) Error() string {
	s := e.Msg
	if e.Code != "" {
		s = e.Code + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind and code with a formatted,
// client-safe message.
func Errorf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Msg: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of the first *Error in err's chain, or Internal.
func KindOf(err error) Kind {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return Internal
}

// AsError returns the first *Error in err's chain.
func AsError(err error) (*Error, bool) { return errors.AsType[*Error](err) }
