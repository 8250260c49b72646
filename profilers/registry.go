package profilers

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/profdb/profdb/ddl"
)

// Profiler is what a plugin registers: the tables of one profiler, each
// column in document order with its logical type, and each table's parent.
type Profiler interface {
	Tables() []ddl.Table
}

// Definition is a registered profiler: its name and its tables, validated
// and ordered parents before children.
type Definition struct {
	Name   string
	Tables []ddl.Table
}

// Table returns the table named name, matched case-insensitively.
func (d Definition) Table(name string) (ddl.Table, bool) {
	for _, t := range d.Tables {
		if strings.EqualFold(t.Name, name) {
			return t, true
		}
	}
	return ddl.Table{}, false
}

// TableNames returns the names of the profiler's tables, parents first.
func (d Definition) TableNames() []string {
	names := make([]string, len(d.Tables))
	for i, t := range d.Tables {
		names[i] = t.Name
	}
	return names
}

var (
	mu       sync.RWMutex
	registry = map[string]Definition{}
)

// Register makes a profiler available by name. It panics if p is nil, if the
// name is registered twice, or if the tables are invalid (see
// ddl.ValidateProfiler): a broken plugin is a programming error found at
// start-up. A table defined by another profiler under the same name is fine:
// each profiler's tables carry its own prefix in the documents.
func Register(name string, p Profiler) {
	if p == nil {
		panic("profilers: Register profiler is nil")
	}
	if err := ValidateName(name); err != nil {
		panic("profilers: Register: " + err.Error())
	}
	def, err := define(name, p.Tables())
	if err != nil {
		panic("profilers: Register: " + err.Error())
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("profilers: Register called twice for profiler " + name)
	}
	registry[name] = def
}

// ValidateName reports whether name can name a profiler: lower-case ASCII
// letters, digits and hyphens, starting with a letter.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("empty profiler name")
	}
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
			return fmt.Errorf("profiler name %q: want lower-case letters, digits and hyphens", name)
		}
	}
	return nil
}

func define(name string, tables []ddl.Table) (Definition, error) {
	cp := make([]ddl.Table, len(tables))
	for i, t := range tables {
		cp[i] = t.Clone()
	}
	if err := ddl.ValidateProfiler(name, cp); err != nil {
		return Definition{}, err
	}
	ordered, err := ddl.Order(cp)
	if err != nil {
		return Definition{}, err
	}
	return Definition{Name: name, Tables: ordered}, nil
}

// MustLookup is Lookup for a name the caller knows is registered (one of
// the profiler packages' Name constants, in a program or test that imports
// the package): it panics on an unknown name.
func MustLookup(name string) Definition {
	def, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return def
}

// Lookup returns the profiler registered under name. The tables are a copy:
// changing them changes nothing in the registry.
func Lookup(name string) (Definition, error) {
	mu.RLock()
	def, ok := registry[name]
	mu.RUnlock()
	if !ok {
		return Definition{}, fmt.Errorf("profilers: unknown profiler %q (forgotten import?); registered: %s",
			name, strings.Join(Names(), ", "))
	}
	out := Definition{Name: def.Name, Tables: make([]ddl.Table, len(def.Tables))}
	for i, t := range def.Tables {
		out.Tables[i] = t.Clone()
	}
	return out, nil
}

// Names returns the names of the registered profilers, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns every registered profiler, sorted by name.
func All() []Definition {
	var defs []Definition
	for _, n := range Names() {
		d, err := Lookup(n)
		if err == nil {
			defs = append(defs, d)
		}
	}
	return defs
}

// ForTable returns the registered profiler that defines the table, matched
// case-insensitively.
func ForTable(table string) (Definition, bool) {
	for _, d := range All() {
		if _, ok := d.Table(table); ok {
			return d, true
		}
	}
	return Definition{}, false
}
