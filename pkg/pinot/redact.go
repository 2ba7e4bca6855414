package pinot

import (
	"strings"
	"unicode/utf8"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/redact"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// Every text the broker or the controller (or a proxy before them) wrote reaches
// an error, /status or a log line only through redactor.snippet. An answer can
// echo what its request carried: the credential (an error page that echoes
// request headers) and the query (a parse error quotes it; an execution error
// names a value). The query's values were sampled from the tables' rows, and
// /status needs no credentials. snippet masks both in the whole answer before it
// folds white space and cuts the line, so neither a value the fold changed nor
// one the cut splits survives.

// minQuotedValue and minNumberValue are the shortest literal values masked on
// their own (a quoted literal is masked whole with its quotes at any length):
// shorter ones (a letter, a small count) tell little and would blank innocent
// words and figures ("error 150", "column 38").
const (
	minQuotedValue = 3 // characters
	minNumberValue = 4
)

// redactor masks what one request carried. The zero redactor masks nothing. It
// keeps the header and the query only: the secrets are worked out when an
// answer is quoted (an error), not for every probe answered.
type redactor struct{ header, sql string }

// newRedactor masks header (redact.Header).
func newRedactor(header string) redactor { return redactor{header: header} }

// redactorFor masks the credential a request actually carried: that is what an
// answer can echo, even if the file has been rotated since.
func redactorFor(h interface{ Get(string) string }) redactor {
	return newRedactor(h.Get("Authorization"))
}

// withQuery masks sql's literals too.
func (r redactor) withQuery(sql string) redactor {
	r.sql = sql
	return r
}

// masker builds the Masker of r's secrets.
func (r redactor) masker() *redact.Masker {
	return redact.New(append(redact.Header(r.header), queryValues(r.sql)...)...)
}

// queryValues are the secrets of a query: the query whole, written as /status
// shows it (its literals as ?); each quoted literal, and its value of
// minQuotedValue or more characters as written and with doubled quotes read;
// each number of minNumberValue or more characters standing alone (not part of
// a longer figure or a name).
func queryValues(sql string) []redact.Secret {
	lits := sqltext.Literals(sql)
	if len(lits) == 0 {
		return nil
	}
	out := []redact.Secret{{Text: sql, Mark: sqltext.Mask(sql)}}
	for _, lit := range lits {
		if !strings.HasPrefix(lit, "'") {
			if utf8.RuneCountInString(lit) >= minNumberValue {
				out = append(out, redact.Secret{Text: lit, Mark: sqltext.MaskMark, Alone: true})
			}
			continue
		}
		out = append(out, redact.Secret{Text: lit, Mark: sqltext.MaskMark})
		v := lit[1:] // an unclosed literal runs to the end of the query
		if len(v) > 0 && strings.HasSuffix(v, "'") {
			v = v[:len(v)-1]
		}
		for _, form := range []string{v, strings.ReplaceAll(v, "''", "'")} {
			if utf8.RuneCountInString(form) >= minQuotedValue {
				out = append(out, redact.Secret{Text: form, Mark: sqltext.MaskMark})
			}
		}
	}
	return out
}

// snippetRunes caps how much of an answer goes into an error or log line.
const snippetRunes = 200

// snippet keeps an answer to one short, valid UTF-8 line with what the request
// carried masked: brokers and proxies can answer HTML pages, stack traces or
// binary garbage. The whole answer is masked before white space is folded and
// the line cut (on a rune boundary): folding and cutting only take away, so the
// line keeps nothing the mask would have found. An empty body says so instead
// of leaving a dangling "HTTP 503: ".
func (r redactor) snippet(b []byte) string {
	s := r.masker().Mask(strings.ToValidUTF8(string(b), "\uFFFD"))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(empty body)"
	}
	n := 0
	for i := range s {
		if n == snippetRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// spells reports whether s holds any piece of the credential r masks.
func (r redactor) spells(s string) bool {
	return redact.New(redact.Header(r.header)...).Mask(s) != s
}
