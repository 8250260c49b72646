// Package exporter writes profiler result sets into a database (a
// store.DB) in the AQTime table layout.
//
// A result set is a profiler's name, a caption, an optional counter (the
// INSTANCES columns) and rows per table. Every result set is written inside
// one transaction: the tables are created or validated, the result set's
// INST_ID and RELATIONS IDs are allocated under a lock that concurrent
// exporters share, the INSTANCES and RELATIONS rows and every data row are
// written, the result set is checked as verify would check it
// (store.Catalog.Check: parents exist, IDs unique per table; RELATIONS
// complete), and only then is the transaction committed. A failure
// anywhere, or a process that dies, leaves no trace of the result set.
//
// Readers deliver result sets through the resultset.Target interface, rows
// streamed one at a time, so that memory stays bounded whatever the size of
// the input; an *Exporter is the Target that writes to a database,
// resultset.Memory one that keeps result sets in memory. resultset.Export
// writes a ResultSet whose tables are iterators.
//
// Copy copies result sets from one database into another, as profdb copy
// does: each is read in a snapshot of its own and written as a new result
// set; a CopyError tells reading the source from writing the target, and a
// CopyObserver hears of each result set's commit.
package exporter
