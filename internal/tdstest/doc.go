// Package tdstest is a small in-process SQL Server (TDS protocol) server for
// tests.
//
// It speaks enough of Microsoft's MS-TDS protocol (TDS 7.4, no TLS) for the
// real github.com/microsoft/go-mssqldb driver to connect over loopback TCP,
// log in, run SQL batches and sp_executesql RPCs, use transactions, bulk-copy
// rows with mssql.CopyIn and cancel requests. Every request is decoded and
// recorded as an Event, including each parameter's TDS type and value, so a
// test can assert exactly what a SQL dialect sent to SQL Server:
//
//	rsp := tdstest.NewResponder().
//		On("select name", &tdstest.Result{Sets: []tdstest.ResultSet{{
//			Columns: []tdstest.Column{{Name: "name", Type: tdstest.NVarChar(50)}},
//			Rows:    [][]any{{"alice"}},
//		}}})
//	srv, err := tdstest.NewServer(rsp.Handle)
//	...
//	db, err := sql.Open("sqlserver", srv.DSN("test"))
//	...
//	for _, ev := range srv.Events() { ... }
//
// What the server answers is decided by a Handler. Responder is a ready-made
// Handler with canned answers keyed by SQL substrings and table schemas for
// bulk copy.
//
// It knows the TDS types profdb sends and reads, and no others: integers
// (TINYINT to BIGINT, decoded as int64), REAL and FLOAT (float64),
// DECIMAL and NUMERIC (exact decimal strings such as "-123.45000000"),
// CHAR, VARCHAR, NCHAR and NVARCHAR (string), and nil for NULL.
//
// Not supported: TLS, MARS, SSPI and federated authentication, BIT, MONEY,
// the date and time types, BINARY, VARBINARY, UNIQUEIDENTIFIER, TEXT, NTEXT,
// IMAGE, XML, UDT, SQL_VARIANT and table-valued parameters, Always Encrypted,
// several RPCs in one request, savepoints and distributed transactions. A
// request that cannot be decoded is answered with an ERROR token whose
// message starts with "tdstest:".
//
// # Why a fake server when CI runs a real one
//
// Babelfish, a real TDS server, runs in every CI run, and every test that
// checks what SQL Server stores or answers runs on it (dialecttest.Run,
// the dialect's TestRealServer and TestTablesOfMissingSchema, exporter's
// TestSQLServerRealServer, the integration suite's sqlserver targets).
// A real server shows the outcome, never what reached it; the tests kept
// here assert what went over the wire, inject faults midway through a
// request, or check what Babelfish does differently from SQL Server
// (../shared/babelfish/README.md):
//
//   - dialects/sqlserver, TestBulkLoadOverTDS: the INSERT BULK statement
//     and its options, the load inside the transaction, every value as
//     encoded, DECIMAL(28,8) included, which Babelfish's bulk copy stores
//     wrongly (so on Babelfish the dialect does not bulk-load such a table,
//     and this is the one check of that encoding for SQL Server);
//     TestBulkLoadConverts: the TDS type each value is sent as into a
//     DBA's columns; TestBulkLoadSkips: an empty load sends nothing;
//     TestBulkLoadFailure, TestBulkLoadBadRows, TestBulkLoadCancelled: a
//     load that fails or is cancelled midway still ends its BULK LOAD
//     message, so the ROLLBACK goes on the same connection, and only the
//     rows before the cancellation reached the server;
//   - dialects/sqlserver, TestScriptOverTDS and TestLockOverTDS: each batch
//     arrives as one plain batch, outside or inside the transaction;
//     TestBindOverTDS: the TDS type of each bound parameter (decimals as
//     NVARCHAR text, BIGINT, FLOAT(53)); TestInspectOverTDS: the catalogue
//     as SQL Server itself types it (tinyint NUMERIC_PRECISION), whatever
//     Babelfish's PostgreSQL catalogue answers, and what Columns sends;
//   - exporter, TestSQLServerWire, TestSQLServerFailedExportRollsBack and
//     TestSQLServerBulkSkip: a whole export request by request: INSERTs at
//     SQL Server's row and parameter limits, one transaction under the
//     applock, no new login during it, ROLLBACK and no COMMIT after a bad
//     row, which tables go by bulk copy and which by INSERT;
//   - exporter/sqlscript, TestSQLServerScript: a --sql-out script replayed
//     batch by batch arrives as plain batches without parameters;
//   - the integration module, TestSQLServerDDLOverTDS and
//     TestSQLServerExportOverTDS: the same for every table and profiler,
//     with resultsettest's edge values, through both write paths.
//
// The one test that checked an answer of the catalogue and nothing of the
// wire (Tables of a missing or empty schema) runs on the real server now,
// and the Catalog's knobs that only it used went with it.
package tdstest
