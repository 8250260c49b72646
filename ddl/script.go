package ddl

import "strings"

// Generator renders tables as SQL statements. Dialects implement it with pure
// functions: no I/O, no state.
type Generator interface {
	// CreateTable returns the statements that create t and its indexes, each
	// safe to run again when they already exist. Statements carry no
	// trailing semicolon.
	CreateTable(t Table) []string
}

// BatchSeparator is implemented by generators whose scripts need a batch
// separator line between statements (SQL Server's "GO").
type BatchSeparator interface {
	BatchSeparator() string
}

// Preamble is implemented by generators whose scripts open with session
// settings, such as PostgreSQL's client_min_messages, which keeps a script
// run again over existing tables from printing a notice per object.
type Preamble interface {
	// Preamble returns the statements, without trailing semicolons.
	Preamble() []string
}

// Script joins the statements that create tables, in the order given, into a
// script the dialect's own client runs as it is. header lines are written as
// "-- " comments first.
func Script(g Generator, header []string, tables []Table) string {
	var b strings.Builder
	for _, h := range header {
		b.WriteString("-- ")
		b.WriteString(h)
		b.WriteByte('\n')
	}
	sep := ""
	if bs, ok := g.(BatchSeparator); ok {
		sep = bs.BatchSeparator()
	}
	write := func(stmts []string) {
		b.WriteByte('\n')
		for _, stmt := range stmts {
			b.WriteString(stmt)
			b.WriteString(";\n")
			if sep != "" {
				b.WriteString(sep)
				b.WriteByte('\n')
			}
		}
	}
	if p, ok := g.(Preamble); ok && len(p.Preamble()) > 0 {
		write(p.Preamble())
	}
	for _, t := range tables {
		write(g.CreateTable(t))
	}
	return b.String()
}
