package dialects

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

var (
	mu       sync.RWMutex
	byName   = map[string]Dialect{}
	byScheme = map[string]Dialect{}
)

// Register makes a dialect available by its name and URL schemes. It panics
// if d is nil or a name or scheme is registered twice.
func Register(d Dialect) {
	if d == nil {
		panic("dialects: Register dialect is nil")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := byName[d.Name()]; dup {
		panic("dialects: Register called twice for dialect " + d.Name())
	}
	for _, s := range d.Facts().Schemes {
		if _, dup := byScheme[s]; dup {
			panic("dialects: Register called twice for scheme " + s)
		}
	}
	byName[d.Name()] = d
	for _, s := range d.Facts().Schemes {
		byScheme[s] = d
	}
}

// Names returns the names of the registered dialects, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Having returns the names of the registered dialects for which has
// reports true, sorted: those with an optional capability, say, for a
// message that tells which dialects have what one lacks.
func Having(has func(Dialect) bool) []string {
	var names []string
	for _, n := range Names() {
		mu.RLock()
		d := byName[n]
		mu.RUnlock()
		if has(d) {
			names = append(names, n)
		}
	}
	return names
}

// ErrUnknownDialect is matched by errors.Is in the error of a dialect name
// no dialect is registered under (Lookup).
var ErrUnknownDialect = errors.New("unknown dialect")

// ErrUnknownScheme is matched by errors.Is in the error of a DSN whose
// scheme no dialect is registered for, or that has none (ForDSN).
var ErrUnknownScheme = errors.New("unknown DSN scheme")

// Lookup returns the dialect registered under name.
func Lookup(name string) (Dialect, error) {
	mu.RLock()
	d, ok := byName[strings.ToLower(name)]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("dialects: %w %q (forgotten import?); registered: %s",
			ErrUnknownDialect, name, strings.Join(Names(), ", "))
	}
	return d, nil
}

// ForDSN returns the dialect a profdb DSN selects by its URL scheme:
// sqlite:PATH or sqlite://PATH, postgres:// or postgresql://, mysql:// or
// mariadb://, sqlserver://.
func ForDSN(dsn string) (Dialect, error) {
	scheme, _, ok := strings.Cut(dsn, ":")
	if !ok || scheme == "" {
		return nil, Wrapping(ErrUnknownScheme, fmt.Errorf("dialects: DSN %q has no scheme; want one of %s", Redact(dsn), strings.Join(schemes(), ", ")))
	}
	mu.RLock()
	d, found := byScheme[strings.ToLower(scheme)]
	mu.RUnlock()
	if !found {
		return nil, fmt.Errorf("dialects: %w %q; supported: %s",
			ErrUnknownScheme, scheme, strings.Join(schemes(), ", "))
	}
	return d, nil
}

func schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(byScheme))
	for s := range byScheme {
		out = append(out, s+":")
	}
	sort.Strings(out)
	return out
}
