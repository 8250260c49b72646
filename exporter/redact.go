package exporter

import (
	"net/url"
	"strings"
)

// passwordOf returns the password in a URL DSN, or "".
func passwordOf(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	if pw == "" {
		for k, v := range u.Query() {
			switch strings.ToLower(k) {
			case "password", "pwd", "pass":
				if len(v) > 0 {
					return v[0]
				}
			}
		}
	}
	return pw
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func replaceAllFold(s, old, repl string) string {
	lo, lold := strings.ToLower(s), strings.ToLower(old)
	var b strings.Builder
	for {
		i := strings.Index(lo, lold)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s, lo = s[i+len(old):], lo[i+len(old):]
	}
}
