package tdstest

import (
	"context"
	"fmt"
)

// EventKind tells what a client request was.
type EventKind int

// The kinds of recorded events.
const (
	Login     EventKind = iota + 1 // a LOGIN7 handshake
	Batch                          // a SQL batch (packet type 1)
	RPC                            // a remote procedure call, usually sp_executesql (packet type 3)
	Begin                          // a transaction manager BEGIN request
	Commit                         // a transaction manager COMMIT request
	Rollback                       // a transaction manager ROLLBACK request
	BulkLoad                       // a BULK LOAD message (packet type 7)
	Attention                      // an attention (cancel) signal
)

var kindNames = map[EventKind]string{
	Login: "Login", Batch: "Batch", RPC: "RPC", Begin: "Begin", Commit: "Commit",
	Rollback: "Rollback", BulkLoad: "BulkLoad", Attention: "Attention",
}

// String returns the kind's name, such as "RPC".
func (k EventKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one recorded client request.
type Event struct {
	// Conn numbers the connection the request came on, from 1 in order of
	// acceptance.
	Conn int
	// Kind tells what the request was.
	Kind EventKind
	// SQL is the batch text, the sp_executesql statement, the name of any
	// other called procedure, or for a BulkLoad the INSERT BULK statement
	// that announced it.
	SQL string
	// Proc is the called procedure's name for an RPC, such as
	// "sp_executesql".
	Proc string
	// ParamDecl is sp_executesql's parameter declaration string, such as
	// "@p1 bigint,@p2 nvarchar(5)".
	ParamDecl string
	// Params are the RPC parameters, without sp_executesql's statement and
	// declaration.
	Params []Param
	// Bulk holds a BulkLoad's decoded columns and rows.
	Bulk *BulkData
	// TxDescriptor is the transaction the request ran in (0 when none): the
	// descriptor from the request's ALL_HEADERS, the new transaction's for
	// Begin, and the ended one's for Commit and Rollback.
	TxDescriptor uint64
	// User and Database are the login's user name and initial database.
	// The password is never recorded.
	User, Database string
}

// Param is one decoded RPC parameter.
type Param struct {
	// Name is the parameter name including its "@", such as "@p1".
	Name string
	// Output tells whether the parameter was passed by reference (OUTPUT).
	Output bool
	// Type is the parameter's declared TDS type; Type.ID is the raw type byte.
	Type TypeInfo
	// Value is the decoded value; see the package documentation for the Go
	// types used.
	Value any
}

// BulkData is the decoded payload of a BULK LOAD message.
type BulkData struct {
	// Table is the target named by the INSERT BULK statement, with the
	// brackets of its parts removed, such as "dbo.items".
	Table string
	// Columns are the columns the client sent, in order.
	Columns []Column
	// Rows are the decoded rows, one value per column.
	Rows [][]any
}

// Column names and types one column of a result set or a bulk load.
type Column struct {
	Name string
	Type TypeInfo
}

// Request is a client request handed to a Handler. It embeds the recorded
// Event.
type Request struct {
	Event
	ctx context.Context
}

// Context is cancelled when the client sends an attention signal for this
// request, when its connection is lost or when the server is closed.
func (r *Request) Context() context.Context { return r.ctx }

// Handler answers a Batch, RPC or BulkLoad request. A non-nil error is sent to
// the client as an ERROR token: an *Error as it is, any other error with
// number 50000, state 1 and class 16. A nil *Result answers with an empty
// DONE, which for a BulkLoad counts its rows.
//
// A handler can be called from several connections at once, and must not
// modify the request, whose slices are shared with the recorded Event. One
// that blocks should return when Request.Context is done.
type Handler func(req *Request) (*Result, error)

// Result is a Handler's answer.
type Result struct {
	// Sets are result sets sent in order, each followed by a DONE token
	// counting its rows.
	Sets []ResultSet
	// RowsAffected is sent in a final DONE token when it is not zero or when
	// there are no Sets.
	RowsAffected int64
}

// ResultSet is one result set: COLMETADATA followed by ROW tokens.
type ResultSet struct {
	Columns []Column
	// Rows hold one value per column: nil for NULL, or a value that fits the
	// column type (see TypeInfo).
	Rows [][]any
}

// Error is a SQL Server error, sent to the client as an ERROR token. The
// go-mssqldb driver returns it as an mssql.Error with the same fields.
type Error struct {
	Number  int32
	State   uint8
	Class   uint8
	Message string
}

// Error returns the message with its number.
func (e *Error) Error() string {
	return fmt.Sprintf("mssql error %d: %s", e.Number, e.Message)
}
