package tdstest

import (
	"errors"
	"fmt"
)

// Token types (MS-TDS 2.2.7).
const (
	tokReturnStatus = 0x79
	tokColMetadata  = 0x81
	tokError        = 0xAA
	tokLoginAck     = 0xAD
	tokRow          = 0xD1
	tokEnvChange    = 0xE3
	tokDone         = 0xFD
	tokDoneProc     = 0xFE
	tokDoneInProc   = 0xFF
)

// DONE status bits and the SELECT command code.
const (
	doneMore      = 0x01
	doneError     = 0x02
	doneCount     = 0x10
	doneAttention = 0x20
	cmdSelect     = 0xC1
	errDefault    = 50000
)

func writeDone(w *writer, tok byte, status, cmd uint16, count uint64) {
	w.u8(tok)
	w.u16(status)
	w.u16(cmd)
	w.u64(count)
}

// envChange writes an ENVCHANGE token; newv and oldv are already length
// prefixed.
func envChange(w *writer, typ byte, newv, oldv []byte) {
	w.u8(tokEnvChange)
	w.u16(uint16(1 + len(newv) + len(oldv)))
	w.u8(typ)
	w.bytes(newv)
	w.bytes(oldv)
}

func bvarchar(s string) []byte {
	w := &writer{}
	w.bvarchar(s)
	return w.b
}

func bvarbyte(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }

func attnReply() []byte {
	w := &writer{}
	writeDone(w, tokDone, doneAttention, 0, 0)
	return w.b
}

// errorReply answers with an ERROR token and a DONE (DONEPROC for an RPC)
// carrying the error flag.
func errorReply(err error, rpc bool) []byte {
	e := &Error{Number: errDefault, State: 1, Class: 16, Message: err.Error()}
	if errors.As(err, &e) && e.Class == 0 {
		e = &Error{Number: e.Number, State: e.State, Class: 16, Message: e.Message}
	}
	w := &writer{}
	msg := encodeUCS2(e.Message)
	server := encodeUCS2("tdstest")
	w.u8(tokError)
	w.u16(uint16(4 + 1 + 1 + 2 + len(msg) + 1 + len(server) + 1 + 4))
	w.u32(uint32(e.Number))
	w.u8(e.State)
	w.u8(e.Class)
	w.usvarchar(e.Message)
	w.bvarchar("tdstest") // server name
	w.bvarchar("")        // procedure name
	w.u32(1)              // line number
	tok := byte(tokDone)
	if rpc {
		tok = tokDoneProc
	}
	writeDone(w, tok, doneError, 0, 0)
	return w.b
}

// resultReply encodes a handler's answer. For an RPC, statement DONEs are
// DONEINPROC tokens followed by RETURNSTATUS 0 and a final DONEPROC, as SQL
// Server sends them.
func resultReply(res *Result, herr error, rpc bool) []byte {
	if herr != nil {
		return errorReply(herr, rpc)
	}
	if res == nil {
		res = &Result{}
	}
	w := &writer{}
	tok := byte(tokDone)
	if rpc {
		tok = tokDoneInProc
	}
	extra := len(res.Sets) == 0 || res.RowsAffected != 0
	for i, set := range res.Sets {
		if err := writeSet(w, set); err != nil {
			return errorReply(fmt.Errorf("tdstest: cannot encode result set %d: %w", i, err), rpc)
		}
		status := uint16(doneCount)
		if rpc || extra || i < len(res.Sets)-1 {
			status |= doneMore
		}
		writeDone(w, tok, status, cmdSelect, uint64(len(set.Rows)))
	}
	if extra {
		status := uint16(doneCount)
		if rpc {
			status |= doneMore
		}
		writeDone(w, tok, status, 0, uint64(res.RowsAffected))
	}
	if rpc {
		w.u8(tokReturnStatus)
		w.u32(0)
		writeDone(w, tokDoneProc, 0, 0, 0)
	}
	return w.b
}

// writeSet writes COLMETADATA and ROW tokens.
func writeSet(w *writer, set ResultSet) error {
	if len(set.Columns) == 0 {
		return errors.New("no columns")
	}
	w.u8(tokColMetadata)
	w.u16(uint16(len(set.Columns)))
	for _, col := range set.Columns {
		w.u32(0) // user type
		w.u16(1) // flags: nullable
		w.typeInfo(col.Type)
		w.bvarchar(col.Name)
	}
	for i, row := range set.Rows {
		if len(row) != len(set.Columns) {
			return fmt.Errorf("row %d has %d values for %d columns", i, len(row), len(set.Columns))
		}
		w.u8(tokRow)
		for j, v := range row {
			if err := w.value(set.Columns[j].Type, v); err != nil {
				return fmt.Errorf("row %d column %q: %w", i, set.Columns[j].Name, err)
			}
		}
	}
	return nil
}
