package ddl

import (
	"errors"
	"fmt"
	"strings"
)

// reserved names a profiler may not define: the shared tables.
var reserved = []string{"INSTANCES", "RELATIONS"}

// ValidateName reports whether name can be a table or column name: upper
// case ASCII letters, digits and underscores, starting with a letter, at most
// 128 characters. Every documented name has that form.
func ValidateName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if len(name) > 128 {
		return fmt.Errorf("name %q is longer than 128 characters", name)
	}
	for i, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
		case (r >= '0' && r <= '9' || r == '_') && i > 0:
		default:
			return fmt.Errorf("name %q: want upper-case letters, digits and underscores, starting with a letter", name)
		}
	}
	return nil
}

// ValidateTable checks one table on its own: its name, its columns (named,
// typed, not duplicated) and, when profilerTable is set, the four columns
// every profiler table has (INST_ID, ID, PARENT_ID, REC_ID).
func ValidateTable(t Table, profilerTable bool) error {
	if err := ValidateName(t.Name); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	if len(t.Columns) == 0 {
		return fmt.Errorf("table %s: no columns", t.Name)
	}
	seen := make(map[string]bool, len(t.Columns))
	for i, c := range t.Columns {
		if err := ValidateName(c.Name); err != nil {
			return fmt.Errorf("table %s, column %d: %w", t.Name, i+1, err)
		}
		if seen[c.Name] {
			return fmt.Errorf("table %s: duplicate column %s", t.Name, c.Name)
		}
		seen[c.Name] = true
		if !c.Type.Valid() {
			return fmt.Errorf("table %s, column %s: invalid type %d", t.Name, c.Name, int(c.Type))
		}
	}
	inst, ok := t.Column(InstID)
	if !ok {
		return fmt.Errorf("table %s: missing column %s", t.Name, InstID)
	}
	if inst.Type != Integer || !inst.NotNull {
		return fmt.Errorf("table %s: column %s must be a NOT NULL Integer", t.Name, InstID)
	}
	if profilerTable {
		for _, req := range []string{ID, ParentID, RecID} {
			if _, ok := t.Column(req); !ok {
				return fmt.Errorf("table %s: missing column %s", t.Name, req)
			}
		}
		if t.Key != "" {
			return fmt.Errorf("table %s: profiler tables have no key (ID and REC_ID are unique only with INST_ID)", t.Name)
		}
	}
	if t.Key != "" {
		if _, ok := t.Column(t.Key); !ok {
			return fmt.Errorf("table %s: key column %s does not exist", t.Name, t.Key)
		}
	}
	if t.NoParentIndex && t.Parent == "" {
		return fmt.Errorf("table %s: NoParentIndex on a top-level table, which has no parent index to leave out", t.Name)
	}
	if _, ok := t.Column(RecID); t.RecIDIndex && (!ok || t.Key != "") {
		return fmt.Errorf("table %s: RecIDIndex on a table without %s, or with a key", t.Name, RecID)
	}
	return nil
}

// ValidateProfiler checks the table set of one profiler: every table valid,
// no table defined twice (names compared case-insensitively), none named like
// a shared table, every parent defined in the same set, and no cycle.
func ValidateProfiler(profiler string, tables []Table) error {
	if len(tables) == 0 {
		return fmt.Errorf("profiler %s: no tables", profiler)
	}
	byName := make(map[string]bool, len(tables))
	for _, t := range tables {
		if err := ValidateTable(t, true); err != nil {
			return fmt.Errorf("profiler %s: %w", profiler, err)
		}
		for _, r := range reserved {
			if strings.EqualFold(t.Name, r) {
				return fmt.Errorf("profiler %s: table %s is shared by every profiler and defined once by profdb", profiler, t.Name)
			}
		}
		key := strings.ToUpper(t.Name)
		if byName[key] {
			return fmt.Errorf("profiler %s: duplicate table %s", profiler, t.Name)
		}
		byName[key] = true
	}
	for _, t := range tables {
		if t.Parent != "" {
			if err := ValidateName(t.Parent); err != nil {
				return fmt.Errorf("profiler %s: table %s, parent: %w", profiler, t.Name, err)
			}
		}
		if t.Parent != "" && !byName[strings.ToUpper(t.Parent)] {
			return fmt.Errorf("profiler %s: table %s has unknown parent %s", profiler, t.Name, t.Parent)
		}
	}
	if _, err := Order(tables); err != nil {
		return fmt.Errorf("profiler %s: %w", profiler, err)
	}
	return nil
}

// Order returns the tables with every parent before its children, otherwise
// keeping the given order. A parent outside the set is ignored (the set may be
// a part of a profiler's tables); a cycle is an error.
func Order(tables []Table) ([]Table, error) {
	idx := make(map[string]int, len(tables))
	for i, t := range tables {
		idx[strings.ToUpper(t.Name)] = i
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := make([]int, len(tables))
	out := make([]Table, 0, len(tables))
	var visit func(i int, path []string) error
	visit = func(i int, path []string) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("parent cycle: %s", strings.Join(append(path, tables[i].Name), " -> "))
		}
		state[i] = visiting
		if p, ok := idx[strings.ToUpper(tables[i].Parent)]; ok && tables[i].Parent != "" {
			if err := visit(p, append(path, tables[i].Name)); err != nil {
				return err
			}
		}
		state[i] = done
		out = append(out, tables[i])
		return nil
	}
	for i := range tables {
		if err := visit(i, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}
