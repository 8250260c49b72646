// Package spool keeps table rows that are too many to hold in memory: rows
// are appended to a buffer that moves to a temporary file once it passes a
// size limit, and are read back, in order, as often as needed. Readers of
// large inputs use it to stream the bulk of a result set while they still
// aggregate the rest in memory.
package spool
