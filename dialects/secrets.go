package dialects

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// mask is what stands for a password in messages.
const mask = "xxxxx"

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

// ParseURL parses a "scheme://" DSN with url.Parse, with an error that is
// safe to show (URLError). It also refuses, with ErrBadURL, a DSN whose
// password url.Parse reads otherwise than Secrets does: an unescaped '/',
// '?' or '#' in a password makes url.Parse end the user information
// before it, so that the rest of the password would be taken for the
// host, port, path or query, and be shown as those ("database name
// \"x@host/db\" contains '/'").
func ParseURL(dsn string) (*url.URL, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, URLError(dsn, err)
	}
	if rest, ok := afterSlashes(dsn); ok {
		if _, end, hasPw := userInfo(rest, nil); hasPw {
			authority := rest[:indexAny(rest, "/?#")]
			if strings.LastIndexByte(authority, '@') != end {
				return nil, ErrBadURL
			}
		}
	}
	return u, nil
}

// Secrets returns the passwords in dsn, raw and decoded: the one in the
// user information and any password, pwd or pass query parameter. It works
// on DSNs that url.Parse rejects: the user information of a "scheme://"
// DSN ends at the first '@' that a host follows, so that a password may
// hold an unescaped '@', '/', '?' or '#'.
func Secrets(dsn string) []string {
	var out []string
	add := func(s string) {
		for _, v := range []string{s, pathUnescape(s)} {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	afterUser := dsn // where the query is looked for: after the password
	if rest, ok := afterSlashes(dsn); ok {
		if start, end, ok := userInfo(rest, nil); ok {
			add(rest[start:end])
			afterUser = rest[end:]
		}
	} else if _, rest, ok := strings.Cut(dsn, ":"); ok {
		// scheme:user:password@host (no "//")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				add(pw)
				afterUser = rest[at:]
			}
		}
	}
	if _, query, ok := strings.Cut(afterUser, "?"); ok {
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

// afterSlashes returns what follows the "//" of a DSN of the form
// "scheme://..." or "//...".
func afterSlashes(dsn string) (string, bool) {
	if strings.HasPrefix(dsn, "//") {
		return dsn[2:], true
	}
	_, rest, ok := strings.Cut(dsn, "://")
	return rest, ok
}

// userInfo finds the user information at the start of s, the text after
// a URL's "//": it ends at the first '@' that a host follows (see
// hostFollows), and the user name before its first ':' holds none of
// / ? # @. s[start:end] is the password, and s[end] the '@'; hasPw is
// false when there is no user information or no ':' in it. stop, when not
// nil, also ends the URL: in a message, a URL ends at white space or a
// quote. Without stop (s is a DSN), when no '@' is followed by a host,
// the last '@' ends the user information, so that a password is never
// taken for a host.
func userInfo(s string, stop func(byte) bool) (start, end int, hasPw bool) {
	colon, last := -1, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if stop != nil && stop(c) {
			break
		}
		switch {
		case c == ':' && colon < 0:
			colon = i
		case colon < 0 && (c == '/' || c == '?' || c == '#'):
			return 0, 0, false
		case c == '@' && colon < 0:
			return 0, 0, false // a user without password
		case c == '@':
			if hostFollows(s[i+1:], stop) {
				return colon + 1, i, true
			}
			last = i
		}
	}
	if stop == nil && last >= 0 {
		return colon + 1, last, true
	}
	return 0, 0, false
}

// hostFollows reports whether s, the text after a user information's '@',
// begins with a host: a name or address (letters, digits, "-._~%,", any
// byte beyond ASCII), an IPv6 address in brackets or a MySQL socket,
// "unix(path)", then maybe ':' and a port (letters and digits: a bad port
// is still one), then '/', '?', '#', the end of s or a stop byte. A
// password's '@' is rarely followed by that: "p@ss@host", "a@tcp(x)/y".
func hostFollows(s string, stop func(byte) bool) bool {
	i := 0
	switch {
	case strings.HasPrefix(s, "unix("):
		if i = strings.IndexByte(s, ')') + 1; i == 0 {
			return false
		}
	case strings.HasPrefix(s, "["):
		if i = strings.IndexByte(s, ']') + 1; i == 0 {
			return false
		}
	default:
		for i < len(s) && (isAlnum(s[i]) || strings.IndexByte("-._~%,", s[i]) >= 0 || s[i] >= 0x80) {
			i++
		}
	}
	if i < len(s) && s[i] == ':' {
		for i++; i < len(s) && isAlnum(s[i]); i++ {
		}
	}
	return i == len(s) || s[i] == '/' || s[i] == '?' || s[i] == '#' || (stop != nil && stop(s[i]))
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func indexAny(s, chars string) int {
	if i := strings.IndexAny(s, chars); i >= 0 {
		return i
	}
	return len(s)
}

func pathUnescape(s string) string {
	d, err := url.PathUnescape(s)
	if err != nil {
		return ""
	}
	return d
}

// Redact returns dsn with its password replaced by "xxxxx", for messages:
// the password of its user information and of a password=, pwd= or pass=
// parameter. Everything else, scheme, user, host, port, database and the
// other parameters, is left as written.
func Redact(dsn string) string {
	return ScrubText(dsn, dsn)
}

// ScrubError returns err with every password that stands as a DSN's
// password in its text replaced by "xxxxx" (see ScrubText; the error then
// no longer unwraps), or err itself when its text holds none.
//
// Of the drivers profdb uses, none puts a password anywhere but in a DSN
// or connection string it quotes: lib/pq, go-sql-driver/mysql and
// go-mssqldb quote user names, hosts and the values of other settings,
// never the password, and SQLite has none. What can quote part of a
// password outside a DSN is net/url: a *url.Error's cause quotes the
// offending part of a URL ("invalid port \":S3cr3t\" after host",
// "invalid URL escape \"%zz\""). So a *url.Error in err's chain is shown
// as URLError shows it, without its cause when the URL holds a password.
func ScrubError(dsn string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	masked := msg
	var ue *url.Error
	if errors.As(err, &ue) && len(Secrets(ue.URL)) > 0 {
		safe := ue.Op + " " + strconv.Quote(Redact(ue.URL)) + ": " + URLError(ue.URL, ue).Error()
		masked = strings.ReplaceAll(masked, ue.Error(), safe)
	}
	masked = ScrubText(dsn, masked)
	if masked != msg {
		return errors.New(masked)
	}
	return err
}

// ScrubText returns msg with every password replaced by "xxxxx" where it
// stands in a DSN or connection string, and nowhere else:
//
//   - the password of a URL's user information, "scheme://user:PASSWORD@host";
//   - the password of go-sql-driver/mysql's DSN, "user:PASSWORD@tcp(host)/db";
//   - the value of a password, pwd or pass setting, in any case, in a URL's
//     query ("?password=PASSWORD&"), a PostgreSQL keyword DSN
//     ("password='PASSWORD'", quotes escaped with '\') or a SQL Server
//     connection string ("Password={PASSWORD};", "PWD=\"PASSWORD\"").
//
// The passwords of dsn (Secrets), as the DSN spells them, decoded or
// encoded the way net/url encodes them, are masked whole in those places,
// even where they hold a character that would otherwise end the password
// there (a space, ';', '&', '/'); a password of another DSN is masked as
// far as its DSN's syntax tells. The same text elsewhere in msg is left as
// it is: a password that is also a word ("tcp", "refused", "disable"), a
// user name, a scheme or a port ("1") would otherwise be garbled in the
// message and, by the place where xxxxx stands, be told to whoever reads
// it.
func ScrubText(dsn, msg string) string {
	known := knownForms(Secrets(dsn))
	var spans []span
	spans = append(spans, userInfoSpans(msg, known)...)
	spans = append(spans, mySQLSpans(msg)...)
	spans = append(spans, settingSpans(msg, known)...)
	return replaceSpans(msg, spans)
}

// knownForms returns the passwords, the ways net/url encodes them and
// the way Go quotes them (%q, as a *url.Error quotes its URL), longest first, so that a password that holds another is masked whole.
func knownForms(secrets []string) []string {
	var out []string
	for _, s := range secrets {
		quoted := strconv.Quote(s)
		for _, v := range []string{s, url.QueryEscape(s), url.PathEscape(s), url.UserPassword("", s).String()[1:], quoted[1 : len(quoted)-1]} {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// span is a password's place in a message: msg[start:end].
type span struct{ start, end int }

// replaceSpans replaces each span of msg, overlapping ones as one, with
// the mask.
func replaceSpans(msg string, spans []span) string {
	if len(spans) == 0 {
		return msg
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		s := spans[i]
		for i++; i < len(spans) && spans[i].start <= s.end; i++ {
			s.end = max(s.end, spans[i].end)
		}
		b.WriteString(msg[last:s.start])
		b.WriteString(mask)
		last = s.end
	}
	b.WriteString(msg[last:])
	return b.String()
}

// endsToken reports whether c ends a DSN in a message: white space, a
// quote or an angle bracket.
func endsToken(c byte) bool {
	return strings.IndexByte(" \t\r\n\"'`<>", c) >= 0
}

// userInfoSpans finds the passwords of user information: after a URL's
// "//" (see userInfo), and each known password that stands between a ':'
// and an '@', as in "scheme://user:PASSWORD@", "scheme:user:PASSWORD@"
// and "user:PASSWORD@tcp(...)".
func userInfoSpans(msg string, known []string) []span {
	var out []span
	for i := 0; ; {
		j := strings.Index(msg[i:], "//")
		if j < 0 {
			break
		}
		p := i + j + 2
		if start, end, ok := userInfo(msg[p:], endsToken); ok && end > start {
			out = append(out, span{p + start, p + end})
		}
		i = p
	}
	for _, v := range known {
		for i := 0; ; {
			j := strings.Index(msg[i:], v)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(v)
			if start > 0 && msg[start-1] == ':' && end < len(msg) && msg[end] == '@' {
				out = append(out, span{start, end})
			}
			i = start + 1
		}
	}
	return out
}

// mySQLSpans finds the passwords of go-sql-driver/mysql DSNs in msg,
// "user:PASSWORD@net(address)/db" or "user:PASSWORD@/db": the password is
// what stands between the first ':' of the DSN and its '@' (the last one
// before the network or the '/'), as the driver reads it.
func mySQLSpans(msg string) []span {
	var out []span
	for i := 0; i < len(msg); i++ {
		if msg[i] != '@' || !mySQLAddress(msg[i+1:]) {
			continue
		}
		begin := i
		for begin > 0 && !endsToken(msg[begin-1]) {
			begin--
		}
		dsn := msg[begin:i]
		if strings.Contains(dsn, "//") {
			continue // a URL's user information: userInfoSpans
		}
		if colon := strings.IndexByte(dsn, ':'); colon >= 0 && colon+1 < len(dsn) {
			out = append(out, span{begin + colon + 1, i})
		}
	}
	return out
}

// mySQLAddress reports whether s, what follows an '@', begins as the
// address of a go-sql-driver/mysql DSN: "net(" (tcp, tcp6, unix, ...) or
// the '/' before the database.
func mySQLAddress(s string) bool {
	if strings.HasPrefix(s, "/") {
		return true
	}
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return n > 0 && n < len(s) && s[n] == '('
}

// passwordKeys are the names of the settings that hold a password, longest
// first, as connection strings spell them in any case.
var passwordKeys = []string{"password", "pwd", "pass"}

// settingSpans finds the values of the settings passwordKeys name: a key
// at the start of msg or after white space, a quote, '?', '&', ';', ','
// or '(', then '=' (with white space around it or not), then the value:
// 'quoted' (with '\' escapes, PostgreSQL), {braced} or "quoted" (with '}}'
// or '""' for the closing character, SQL Server), a known password, or
// the text up to white space, a quote, ';', '&' or ')'.
func settingSpans(msg string, known []string) []span {
	var out []span
	lower := strings.ToLower(msg)
	for i := 0; i < len(msg); i++ {
		if i > 0 && strings.IndexByte(" \t\r\n\"'`?&;,(", msg[i-1]) < 0 {
			continue
		}
		key := ""
		for _, k := range passwordKeys {
			if strings.HasPrefix(lower[i:], k) {
				key = k
				break
			}
		}
		if key == "" {
			continue
		}
		p := skipSpace(msg, i+len(key))
		if p >= len(msg) || msg[p] != '=' {
			continue
		}
		p = skipSpace(msg, p+1)
		if s, ok := settingValue(msg, p, known); ok && s.end > s.start {
			out = append(out, s)
		}
	}
	return out
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// settingValue returns where the value that begins at msg[p] stands,
// without its quotes (see settingSpans). A known password there is taken
// whole first: a password may begin with a quote or a brace.
func settingValue(msg string, p int, known []string) (span, bool) {
	if p >= len(msg) {
		return span{}, false
	}
	for _, v := range known {
		if end := p + len(v); strings.HasPrefix(msg[p:], v) && endsValue(msg, end) {
			return span{p, end}, true
		}
	}
	switch open := msg[p]; open {
	case '\'':
		for i := p + 1; i < len(msg); i++ {
			switch msg[i] {
			case '\\':
				i++
			case '\'':
				return span{p + 1, i}, true
			}
		}
		return span{p + 1, len(msg)}, true // unterminated: all the rest
	case '{', '"':
		closing := byte('}')
		if open == '"' {
			closing = '"'
		}
		for i := p + 1; i < len(msg); i++ {
			if msg[i] != closing {
				continue
			}
			if i+1 < len(msg) && msg[i+1] == closing {
				i++
				continue
			}
			return span{p + 1, i}, true
		}
		return span{p + 1, len(msg)}, true
	}
	end := p
	for !endsValue(msg, end) {
		if msg[end] == '\\' { // PostgreSQL: '\' takes the next character as it is
			end++
		}
		end++
	}
	return span{p, min(end, len(msg))}, true
}

// endsValue reports whether an unquoted setting's value ends at msg[i]:
// at the end, white space, a quote, ';', '&' or ')', or a ':' or ','
// followed by white space or the end, as after a DSN in a message.
func endsValue(msg string, i int) bool {
	if i >= len(msg) {
		return true
	}
	switch c := msg[i]; {
	case endsToken(c) || c == ';' || c == '&' || c == ')':
		return true
	case c == ':' || c == ',':
		return i+1 == len(msg) || endsToken(msg[i+1])
	}
	return false
}
