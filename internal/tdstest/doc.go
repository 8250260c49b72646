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
// Decoded values use these Go types: int64 (all integer types), float64
// (REAL, FLOAT), bool (BIT), string (CHAR, VARCHAR, NCHAR, NVARCHAR; DECIMAL,
// NUMERIC and MONEY as exact decimal strings such as "-123.45000000"), []byte
// (BINARY, VARBINARY, UNIQUEIDENTIFIER in wire byte order), time.Time (DATE,
// TIME, DATETIME, SMALLDATETIME, DATETIME2 in UTC, DATETIMEOFFSET in its own
// offset) and nil for NULL.
//
// Not supported: TLS, MARS, SSPI and federated authentication, TEXT, NTEXT,
// IMAGE, XML, UDT, SQL_VARIANT and table-valued parameters, Always Encrypted,
// several RPCs in one request, savepoints and distributed transactions. A
// request that cannot be decoded is answered with an ERROR token whose
// message starts with "tdstest:".
package tdstest
