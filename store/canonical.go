package store

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/resultset"
)

// Canonical turns a value scanned from a database into the canonical form
// of logical type t (see resultset.Convert): drivers return numbers as int64,
// float64, or text in []byte, and decimals with trailing zeros.
func Canonical(t ddl.Type, v any) (any, error) {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return nil, nil
	}
	switch t {
	case ddl.String:
		switch x := v.(type) {
		case string:
			return v, nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
	case ddl.Integer:
		switch x := v.(type) {
		case int64:
			return v, nil
		case int32:
			return int64(x), nil
		case float64:
			return resultset.Convert(ddl.Integer, x)
		case string:
			return resultset.Convert(ddl.Integer, json.Number(x))
		}
	case ddl.Decimal:
		switch x := v.(type) {
		case int64:
			return ddl.Dec(strconv.FormatInt(x, 10)), nil
		case float64:
			return resultset.ParseDecimal(strconv.FormatFloat(x, 'f', -1, 64))
		case string:
			return resultset.ParseDecimal(x)
		}
	case ddl.Float:
		switch x := v.(type) {
		case float64:
			return v, nil
		case float32:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case string:
			return strconv.ParseFloat(x, 64)
		}
	}
	return nil, fmt.Errorf("cannot read %T as %s", v, t)
}
