package dialects

import (
	"errors"
	"net/url"
	"slices"
	"strings"
)

// ErrBadURL replaces the cause of a URL syntax error in a DSN that holds a
// password: url.Parse quotes the offending part (a bad %-escape, a "port"
// that is the rest of a password with a '/' in it), which may be part of
// the password.
var ErrBadURL = errors.New("not a valid URL (characters such as @ : / ? # % in a password must be percent-encoded)")

// URLError turns an error of url.Parse on dsn into one that is safe to
// show: a *url.Error repeats the whole DSN, so only its cause is kept, and
// when the DSN holds a password even the cause may quote part of it, so it
// becomes ErrBadURL.
func URLError(dsn string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if len(Secrets(dsn)) > 0 {
		return ErrBadURL
	}
	return err
}

// Secrets returns the passwords in dsn, raw and decoded: the one in the
// user information and any password, pwd or pass query parameter. It works
// on DSNs that url.Parse rejects.
func Secrets(dsn string) []string {
	var out []string
	add := func(s string) {
		for _, v := range []string{s, pathUnescape(s)} {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	if _, rest, ok := strings.Cut(dsn, "://"); ok {
		// Up to the last '@' before the query: a password may hold an
		// unescaped '/' that url.Parse would take for the path.
		rest, _, _ = strings.Cut(rest, "?")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				add(pw)
			}
		}
	} else if _, rest, ok := strings.Cut(dsn, ":"); ok {
		// scheme:user:password@host (no "//")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				add(pw)
			}
		}
	}
	if _, query, ok := strings.Cut(dsn, "?"); ok {
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.ToLower(k) {
			case "password", "pwd", "pass":
				add(v)
				if d, err := url.QueryUnescape(v); err == nil {
					add(d)
				}
			}
		}
	}
	return out
}

func pathUnescape(s string) string {
	d, err := url.PathUnescape(s)
	if err != nil {
		return ""
	}
	return d
}

// ScrubError returns err with every password of dsn in its text replaced
// by "xxxxx", matched without regard to case (the error then no longer
// unwraps), or err itself when its text holds none.
func ScrubError(dsn string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	masked := msg
	for _, s := range Secrets(dsn) {
		masked = replaceFold(masked, s, "xxxxx")
	}
	if masked == msg {
		return err
	}
	return errors.New(masked)
}

// replaceFold replaces every appearance of old in s, matched without
// regard to case, with repl.
func replaceFold(s, old, repl string) string {
	if old == "" {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i+len(old) <= len(s); {
		if strings.EqualFold(s[i:i+len(old)], old) {
			b.WriteString(s[last:i])
			b.WriteString(repl)
			i += len(old)
			last = i
			continue
		}
		i++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
