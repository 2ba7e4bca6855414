package pinot

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Every text the broker or the controller (or a proxy before them) wrote reaches
// an error, /status or a log line only through redactor.snippet: an error page
// that echoes request headers would otherwise carry the credential out. The
// whole answer is masked first, before it is folded or cut, and a cut cannot
// keep a credential's start either: any run of minSecretRun or more of its
// leading characters is masked, wherever it is — a page that cut the echo
// itself, or a run broken off by an unknown encoding, is covered too.

// minSecretRun is the fewest leading characters of a credential that are masked
// on their own. Three base64 characters of a Basic credential encode 18 bits:
// the first two bytes of "user:password", so with any user name nothing of the
// password (2 bits of it after a one-letter name); three characters of a JWT
// are "eyJ", those of any JWT; three of an opaque token are 18 bits of it. A
// shorter minimum would mask innocent text that happens to end with a letter
// or two of the token.
const minSecretRun = 4

// redactedMark replaces each masked run.
const redactedMark = "[REDACTED]"

// secretForm is one way a credential can be written, and how many of its
// leading characters make a run worth masking.
type secretForm struct {
	text string
	min  int // characters
}

// redactor masks one Authorization header value in text. The zero redactor
// masks nothing (a request that carried no credential). It keeps the header
// only: the forms are worked out when an answer is quoted (an error), not for
// every probe answered.
type redactor struct{ header string }

// newRedactor masks header (see forms).
func newRedactor(header string) redactor { return redactor{header: strings.TrimSpace(header)} }

// forms are the ways the header is masked: the whole value with its scheme word
// ("Basic …"), the credential after the scheme, and for Basic the decoded
// password (the user name is no secret). A piece shorter than minSecretRun is
// not masked on its own: it could not be told from ordinary text.
func (r redactor) forms() []secretForm {
	header := r.header
	if header == "" {
		return nil
	}
	var forms []secretForm
	add := func(s string, lead int) {
		if n := utf8.RuneCountInString(s); n-lead >= minSecretRun {
			forms = append(forms, secretForm{text: s, min: lead + minSecretRun})
		}
	}
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok {
		add(header, 0)
		return forms
	}
	cred = strings.TrimSpace(cred)
	// The scheme word alone is no secret: a run of the value counts from the
	// credential's first characters on.
	add(scheme+" "+cred, utf8.RuneCountInString(scheme)+1)
	add(cred, 0)
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
			if _, pw, ok := strings.Cut(string(dec), ":"); ok {
				add(pw, 0)
			} else {
				add(string(dec), 0)
			}
		}
	}
	return forms
}

// redactorFor masks the credential a request actually carried: that is what an
// answer can echo, even if the file has been rotated since.
func redactorFor(h interface{ Get(string) string }) redactor {
	return newRedactor(h.Get("Authorization"))
}

// snippetRunes caps how much of an answer goes into an error or log line.
const snippetRunes = 200

// snippet keeps an answer to one short, valid UTF-8 line with the credential
// masked: brokers and proxies can answer HTML pages, stack traces or binary
// garbage. The whole answer is masked before white space is folded and the
// line cut (on a rune boundary); an empty body says so instead of leaving a
// dangling "HTTP 503: ".
func (r redactor) snippet(b []byte) string {
	s := r.mask(strings.ToValidUTF8(string(b), "\uFFFD"))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(empty body)"
	}
	n := 0
	for i := range s {
		if n == snippetRunes {
			// Masked already; masking the cut line again costs 200 runes and keeps
			// the rule true of the line itself.
			return r.mask(s[:i]) + "…"
		}
		n++
	}
	return s
}

// mask replaces every run of text that spells at least a form's minimum of its
// leading characters, however encoded (see spell), with redactedMark.
func (r redactor) mask(s string) string {
	if r.header == "" || s == "" {
		return s
	}
	forms := r.forms()
	var spans [][2]int
	for _, f := range forms {
		for i := 0; i < len(s); {
			// Runs start on a rune boundary, so the line stays valid UTF-8.
			if utf8.RuneStart(s[i]) {
				if end, n := spell(s, i, f.text); n >= f.min {
					spans = append(spans, [2]int{i, end})
					i = end
					continue
				}
			}
			i++
		}
	}
	if len(spans) == 0 {
		return s
	}
	// One mark per stretch: overlapping or touching runs (the value and its
	// credential, say) merge.
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if last := &merged[len(merged)-1]; sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	var out strings.Builder
	at := 0
	for _, sp := range merged {
		out.WriteString(s[at:sp[0]])
		out.WriteString(redactedMark)
		at = sp[1]
	}
	out.WriteString(s[at:])
	return out.String()
}

// spell matches form's leading characters against s from byte i. Each
// character may be written as itself or escaped — JSON's \/ and \uXXXX, an HTML
// character reference (&#43; &#x2B;), percent-encoding (%2B) — and white space
// (or an escaped \n, \r, \t) may fall between two of them, as in a wrapped
// page. It returns the byte after the last character matched and how many
// characters matched.
func spell(s string, i int, form string) (end, n int) {
	j := i
	for _, want := range form {
		k := j
		if n > 0 {
			k = skipSpace(s, k)
		}
		got, next := charAt(s, k)
		if next == k || got != want {
			if unicode.IsSpace(want) && k > j {
				// A space in the credential itself was matched by the white space skipped.
				j, n = k, n+1
				continue
			}
			break
		}
		j, n = next, n+1
	}
	return j, n
}

// skipSpace skips white space and escaped white space from s[i].
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v':
			i++
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't'):
			i += 2
		default:
			return i
		}
	}
	return i
}

// charAt decodes the character written at s[i], escaped or not; next == i when
// there is none.
func charAt(s string, i int) (c rune, next int) {
	if i >= len(s) {
		return 0, i
	}
	switch s[i] {
	case '\\':
		if strings.HasPrefix(s[i:], `\/`) {
			return '/', i + 2
		}
		if len(s)-i >= 6 && (s[i+1] == 'u' || s[i+1] == 'U') {
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				return rune(v), i + 6
			}
		}
	case '&':
		if v, n, ok := charRef(s[i:]); ok {
			return v, i + n
		}
	case '%':
		if len(s)-i >= 3 {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil && v < utf8.RuneSelf {
				return rune(v), i + 3
			}
		}
	}
	c, size := utf8.DecodeRuneInString(s[i:])
	return c, i + size
}

// charRef decodes an HTML numeric character reference at the start of s:
// &#43; or &#x2B; (up to 7 digits).
func charRef(s string) (c rune, n int, ok bool) {
	if !strings.HasPrefix(s, "&#") {
		return 0, 0, false
	}
	base, start := 10, 2
	if len(s) > 2 && (s[2] == 'x' || s[2] == 'X') {
		base, start = 16, 3
	}
	semi := strings.IndexByte(s[start:min(len(s), start+8)], ';')
	if semi < 1 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[start:start+semi], base, 32)
	if err != nil || v > unicode.MaxRune {
		return 0, 0, false
	}
	return rune(v), start + semi + 1, true
}
