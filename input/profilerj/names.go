package profilerj

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// defaultPackage is the module (and, empty, the namespace) of a class
// outside any package.
const defaultPackage = "(default package)"

// splitClass splits a fully qualified class name into package and simple
// name: "java.awt.Rectangle" -> "java.awt", "Rectangle".
func splitClass(full string) (pkg, class string) {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return "", full
}

// moduleOf returns the module name for a package.
func moduleOf(pkg string) string {
	if pkg == "" {
		return defaultPackage
	}
	return pkg
}

// javaMethod is a method name as the <profile> and <sampler> sections write
// it: "java.awt.EventQueue.getNextEvent()", or for a constructor
// "java.awt.event.PaintEvent(java.awt.Component,int,java.awt.Rectangle)".
type javaMethod struct {
	pkg, class string // package and simple class name
	method     string // simple method name, "<init>" for a constructor
	params     string // the human-readable parameter list with its parentheses, or ""
	ctor       bool
}

// routineName is the COL_ROUTINE_NAME: the simple name with the parameter
// list as written (a constructor is named after its class).
func (m javaMethod) routineName() string {
	if m.ctor {
		return m.class + m.params
	}
	return m.method + m.params
}

// qualified returns pkg.class.
func (m javaMethod) qualified() string {
	if m.pkg == "" {
		return m.class
	}
	return m.pkg + "." + m.class
}

func upper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// parseMethod splits a method name of the <profile> or <sampler> sections.
// The name does not say whether it ends in a method or a constructor; by
// Java naming conventions a last segment starting with an upper-case letter
// after a segment starting with a lower-case one (a package) is a
// constructor: "java.awt.AWTEvent(java.lang.Object,int)" is the constructor
// of java.awt.AWTEvent.
func parseMethod(full string) javaMethod {
	base, params := full, ""
	if i := strings.IndexByte(full, '('); i >= 0 {
		base, params = full[:i], full[i:]
	}
	owner, last := "", base
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		owner, last = base[:i], base[i+1:]
	}
	_, ownerLast := splitClass(owner)
	if upper(last) && (owner == "" || !upper(ownerLast)) {
		return javaMethod{pkg: owner, class: last, method: "<init>", params: params, ctor: true}
	}
	pkg, class := splitClass(owner)
	return javaMethod{pkg: pkg, class: class, method: last, params: params}
}
