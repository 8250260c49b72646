package optionerr

import (
	"fmt"
	"slices"
)

// Error is an error caused by options: Msg, in which the fields are named
// by fmt verbs (%[1]s for Fields[0], %[2]s for Fields[1], ...), says what
// is wrong with them or what they stopped.
type Error struct {
	// Type is the options' type as a caller writes it, "gate.Options".
	Type string
	// Fields are the fields of Type the message names, "MaxDrop".
	Fields []string
	// Msg is the message, with a %s verb for each field named.
	Msg string
	// Err, if set, is a sentinel the error matches (errors.Is); its text
	// is not part of the message.
	Err error
}

// New returns the error of the fields of typ, with the message msg naming
// them with fmt verbs, matching the sentinel err (nil for none).
func New(err error, typ, msg string, fields ...string) *Error {
	return &Error{Type: typ, Fields: fields, Msg: msg, Err: err}
}

// Error names each field as Type.Field: "gate.Options.MaxDrop".
func (e *Error) Error() string {
	return e.Phrase(func(field string) string { return e.Type + "." + field })
}

// Phrase returns the message with each field named by name(field) (a
// flag, say).
func (e *Error) Phrase(name func(field string) string) string {
	args := make([]any, len(e.Fields))
	for i, f := range e.Fields {
		args[i] = name(f)
	}
	return fmt.Sprintf(e.Msg, args...)
}

// Names reports whether the error names the field.
func (e *Error) Names(field string) bool { return slices.Contains(e.Fields, field) }

// Unwrap returns the sentinel the error matches.
func (e *Error) Unwrap() error { return e.Err }

// Field names an Options field in a note a library logs (an argument of a
// Logf function, printed with %s): it prints as Type.Name,
// "exporter.Options.NoDistribute", and a command line that receives it
// prints the flag that sets the field instead.
type Field struct {
	// Type is the options' type as a caller writes it, "exporter.Options".
	Type string
	// Name is the field, "NoDistribute".
	Name string
}

func (f Field) String() string { return f.Type + "." + f.Name }
