// Package mysql is profdb's MySQL and MariaDB dialect, on the driver
// github.com/go-sql-driver/mysql (database/sql driver name "mysql").
// Importing it registers the dialect for the DSN scheme "mysql:":
//
//	import _ "github.com/profdb/profdb/dialects/mysql"
//
// Names are stored as documented (upper case) and quoted with backticks. A
// schema is a database; "" means the connection's current database.
//
// Tables are InnoDB, utf8mb4 with the binary collation utf8mb4_bin, so text
// round-trips exactly and compares case-sensitively. Every session runs in
// strict SQL mode (see Config), so an out-of-range or malformed value is
// an error, never silently clamped or truncated.
//
// Statement size: besides the 65535 parameters of a prepared statement,
// the server bounds each packet by max_allowed_packet (16 MiB by default
// on MySQL 8 and MariaDB 10.11; 4 MiB on older servers). The driver reads
// the value at connect time (DriverDSN leaves maxAllowedPacket to the
// server) and sends every parameter of at least
// max_allowed_packet/(parameters+1) bytes in packets of its own
// (COM_STMT_SEND_LONG_DATA), so the rest of a statement always fits and a
// statement may carry far more than max_allowed_packet in all (measured on
// MariaDB 10.11 with 16 MiB: one INSERT of 40 rows with a 1 MiB string
// each). What must stay below max_allowed_packet is each single value: a
// larger one fails with error 1105 "Parameter of prepared statement which
// is set through mysql_send_long_data() is longer than
// 'max_allowed_packet' bytes". MaxAllowedPacket reads the value, for an
// exporter that wants to say so before it starts. Statements without
// parameters (text protocol) must fit in one packet as a whole.
//
// Result-set allocation is serialized with a named session lock (Lock).
//
// Plans and statistics (docs/performance.md, "Plans and statistics"): the
// dialect sets nothing for the planner and runs no ANALYZE TABLE (which
// would commit the open transaction). The optimizer counts the rows of a
// condition INST_ID = ? in the index itself (index dives), whatever the
// statistics say, and InnoDB recalculates its persistent statistics in the
// background once a tenth of a table has changed.
package mysql
