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

// ScrubError returns err with every password of dsn that stands as a
// password in its text replaced by "xxxxx" (see ScrubText; the error then no
// longer unwraps), or err itself when its text holds none.
func ScrubError(dsn string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if masked := ScrubText(dsn, msg); masked != msg {
		return errors.New(masked)
	}
	return err
}

// ScrubText returns msg with every password of dsn replaced by "xxxxx"
// where it stands as a password or as a value of its own: as the password
// of a URL's or a Go MySQL DSN's user information ("user:PASSWORD@"), or
// as a whole value between delimiters ("password=PASSWORD;", "'PASSWORD'",
// a word of its own). The same text inside other text is left as it is:
// masking it there would garble the message ("connection" with the
// password "e") and, for a short password, tell it to whoever reads it.
func ScrubText(dsn, msg string) string {
	secrets := Secrets(dsn)
	// A password may stand in msg as the DSN spells it, decoded, or encoded
	// the way net/url encodes user information and queries.
	for _, s := range slices.Clone(secrets) {
		for _, v := range []string{url.QueryEscape(s), url.PathEscape(s), url.UserPassword("", s).String()[1:]} {
			if v != "" && !slices.Contains(secrets, v) {
				secrets = append(secrets, v)
			}
		}
	}
	// Longest first, so that a password that holds another is masked whole.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, s := range secrets {
		msg = maskAsPassword(msg, s)
	}
	return msg
}

// maskAsPassword replaces each appearance of pw in msg that stands as a
// password (see ScrubText) with "xxxxx".
func maskAsPassword(msg, pw string) string {
	if pw == "" {
		return msg
	}
	var b strings.Builder
	last := 0
	for i := 0; i+len(pw) <= len(msg); {
		j := strings.Index(msg[i:], pw)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(pw)
		userInfo := start > 0 && msg[start-1] == ':' && end < len(msg) && msg[end] == '@'
		whole := (start == 0 || isDelimiter(msg[start-1])) && (end == len(msg) || isDelimiter(msg[end]))
		if userInfo || whole {
			b.WriteString(msg[last:start])
			b.WriteString("xxxxx")
			last = end
			i = end
			continue
		}
		i = start + 1
	}
	if last == 0 {
		return msg
	}
	b.WriteString(msg[last:])
	return b.String()
}

// isDelimiter reports whether c ends a value in a message: white space,
// a quote, or a character that separates settings or encloses values.
func isDelimiter(c byte) bool {
	return strings.IndexByte(" \t\r\n'\"`=&;,:()[]{}<>", c) >= 0
}
