package ddl_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
)

func TestTypeRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		typ  ddl.Type
		name string
	}{
		{ddl.String, "String"}, {ddl.Integer, "Integer"}, {ddl.Decimal, "Decimal"}, {ddl.Float, "Float"},
	} {
		if !tc.typ.Valid() {
			t.Errorf("%v not Valid", tc.typ)
		}
		if got := tc.typ.String(); got != tc.name {
			t.Errorf("String() = %q, want %q", got, tc.name)
		}
		for _, s := range []string{tc.name, strings.ToLower(tc.name), strings.ToUpper(tc.name), " " + tc.name + "\t"} {
			if got, err := ddl.ParseType(s); err != nil || got != tc.typ {
				t.Errorf("ParseType(%q) = %v, %v; want %v", s, got, err, tc.typ)
			}
		}
		text, err := tc.typ.MarshalText()
		if err != nil || string(text) != tc.name {
			t.Errorf("MarshalText() = %q, %v", text, err)
		}
		var back ddl.Type
		if err := back.UnmarshalText(text); err != nil || back != tc.typ {
			t.Errorf("UnmarshalText(%q) = %v, %v", text, back, err)
		}
	}
	// The documents' spelling of Float.
	if got, err := ddl.ParseType("Floating-point"); err != nil || got != ddl.Float {
		t.Errorf(`ParseType("Floating-point") = %v, %v`, got, err)
	}
}

func TestTypeInvalid(t *testing.T) {
	for _, typ := range []ddl.Type{0, -1, ddl.Float + 1} {
		if typ.Valid() {
			t.Errorf("%d Valid", int(typ))
		}
		if !strings.HasPrefix(typ.String(), "Type(") {
			t.Errorf("String() of invalid %d = %q", int(typ), typ.String())
		}
		if _, err := typ.MarshalText(); err == nil {
			t.Errorf("MarshalText of invalid %d succeeded", int(typ))
		}
	}
	for _, s := range []string{"", "Text", "Floating point", "int"} {
		if _, err := ddl.ParseType(s); err == nil || !strings.Contains(err.Error(), "unknown logical type") {
			t.Errorf("ParseType(%q) = %v, want an unknown type error", s, err)
		}
	}
	var typ ddl.Type = ddl.Integer
	if err := typ.UnmarshalText([]byte("nope")); err == nil || typ != ddl.Integer {
		t.Errorf("UnmarshalText(nope) = %v and left %v", err, typ)
	}
}

func TestTableJSON(t *testing.T) {
	in := ddl.Table{Name: "P_A", Parent: "P_B", Columns: []ddl.Column{{Name: "COL_X", Type: ddl.Float}, {Name: "INST_ID", Type: ddl.Integer, NotNull: true}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"name":"P_A","parent":"P_B","columns":[{"name":"COL_X","type":"Float"},{"name":"INST_ID","type":"Integer"}]}`
	if string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
	var out ddl.Table
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != in.Name || out.Parent != in.Parent || len(out.Columns) != 2 || out.Columns[0] != in.Columns[0] {
		t.Errorf("round trip = %+v", out)
	}
	if _, err := json.Marshal(ddl.Column{Name: "C", Type: 0}); err == nil {
		t.Error("marshalling an invalid type succeeded")
	}
	if err := json.Unmarshal([]byte(`{"name":"C","type":"Blob"}`), &ddl.Column{}); err == nil {
		t.Error("unmarshalling an unknown type succeeded")
	}
}
