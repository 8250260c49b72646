package exporter

// BulkMode selects the write path.
type BulkMode int

const (
	// BulkAuto uses the dialect's native bulk path (COPY, LOAD DATA, bulk
	// copy) where the dialect and server offer it, else batched INSERT.
	BulkAuto BulkMode = iota
	// BulkOff always uses batched multi-row INSERT.
	BulkOff
)

// String returns "auto" or "off".
func (m BulkMode) String() string {
	if m == BulkOff {
		return "off"
	}
	return "auto"
}

// ParseBulkMode parses "auto" or "off".
func ParseBulkMode(s string) (BulkMode, error) {
	switch s {
	case "auto", "":
		return BulkAuto, nil
	case "off":
		return BulkOff, nil
	}
	return 0, errorf("bulk mode %q: want auto or off", s)
}

// Options tune how an Exporter writes. Where it writes, and what it
// reports on the way (store.Options.Phase, Logf), are the store.DB's.
type Options struct {
	// Bulk selects the write path.
	Bulk BulkMode
	// Progress, if set, is called after each batch with the rows written
	// so far in the current result set.
	Progress func(rows int64)
	// Retries is how many times a result set is written again, each time
	// in a new transaction after a pause that grows, when a concurrent
	// transaction made the server abort it: a deadlock, a serialization
	// failure, a cluster's certification conflict (Galera), or an INST_ID
	// another exporter took first. 0 never retries. The rows are kept (in
	// memory, then in a temporary file) until the result set is committed,
	// so that they can be written again. Dialects that cannot tell such
	// conflicts (dialects.Retrier) never retry.
	Retries int
	// NoDistribute keeps the tables an export creates plain on a server
	// that spreads tables over nodes (Citus; see dialects.Distributor),
	// where they are otherwise distributed by INST_ID, the shared ones made
	// reference tables. Tables that exist already are never changed.
	NoDistribute bool
	// Version is the profdb version recorded with each result set in
	// PROFDB_RESULT_SETS ("" records NULL).
	Version string
}

// DefaultRetries is the Retries the command-line tool uses unless told
// otherwise. Eight exporters racing on a three-node Galera cluster took up
// to five attempts for one result set (integration/galera); ten retries,
// whose pauses add up to about half a minute at most, leave room.
const DefaultRetries = 10
