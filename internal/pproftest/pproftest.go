package pproftest

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Figures are flat and cum per function name.
type Figures map[string][2]int64

// Parse reads the output of `go tool pprof -top` whose figures are integers
// followed by unit (-unit=ns; "" for counts), and returns flat and cum per
// function, the "(inline)" and "(partial-inline)" marks dropped and the
// rows of one name added up. Functions whose figures are both 0 are left
// out.
func Parse(out []byte, unit string) (Figures, error) {
	num := func(s string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSuffix(s, unit), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("pprof -top: figure %q: %w", s, err)
		}
		return n, nil
	}
	f := Figures{}
	header := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if !header {
			header = len(fields) == 5 && fields[0] == "flat" && fields[3] == "cum"
			continue
		}
		if len(fields) < 6 {
			return nil, fmt.Errorf("pprof -top: line %q", sc.Text())
		}
		name := strings.Join(fields[5:], " ")
		name = strings.TrimSuffix(strings.TrimSuffix(name, " (inline)"), " (partial-inline)")
		flat, err := num(fields[0])
		if err != nil {
			return nil, err
		}
		cum, err := num(fields[3])
		if err != nil {
			return nil, err
		}
		v := f[name]
		f[name] = [2]int64{v[0] + flat, v[1] + cum}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pprof -top: %w", err)
	}
	if !header {
		return nil, fmt.Errorf("pprof -top: no table:\n%s", out)
	}
	for k, v := range f {
		if v == [2]int64{} {
			delete(f, k)
		}
	}
	return f, nil
}
