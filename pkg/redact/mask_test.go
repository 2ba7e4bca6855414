package redact

import (
	"strings"
	"testing"
)

// TestHeaderMask: what is masked of an Authorization header value and what is
// left, written the ways a page may write it.
func TestHeaderMask(t *testing.T) {
	m := New(Header("Basic d2FybXVwOmhvcnNlLWJhdHRlcnk=")...) // warmup:horse-battery
	for in, want := range map[string]string{
		"Authorization: Basic d2FybXVwOmhvcnNlLWJhdHRlcnk= end":                        "Authorization: [REDACTED] end",
		"token d2FybXVwOmhvcnNlLWJhdHRlcnk=":                                           "token [REDACTED]",
		"cut by the page: Basic d2Fyb":                                                 "cut by the page: [REDACTED]",
		"cut short: d2Fy":                                                              "cut short: [REDACTED]",
		"three are left: d2F":                                                          "three are left: d2F",
		"Basic auth failed for user warmup":                                            "Basic auth failed for user warmup",
		"decoded warmup:horse-battery here":                                            "decoded warmup:[REDACTED] here",
		`json "d2FybXVwOmhvcnNlLWJhdHRlcnk\u003d"`:                                     `json "[REDACTED]"`,
		"escaped \\u0064\\u0032\\u0046\\u0079":                                         "escaped [REDACTED]",
		"html d2FybXVwOmhvcnNlLWJhdHRlcnk&#61; percent d2FybXVwOmhvcnNlLWJhdHRlcnk%3D": "html [REDACTED] percent [REDACTED]",
		"wrapped d2FybXVwOmhv\n   cnNlLWJhdHRlcnk= after":                              "wrapped [REDACTED] after",
		"escaped newline d2FybXVw\\nOmhv":                                              "escaped newline [REDACTED]",
		"password prefix hors alone, horses too":                                       "password prefix [REDACTED] alone, [REDACTED]s too",
		// Runs of 8 from anywhere: the credential's tail, the password's middle.
		"a proxy shows ...OmhvcnNlLWJhdHRlcnk= only":   "a proxy shows ...[REDACTED] only",
		"the password's middle: rse-batt, and rse-bat": "the password's middle: [REDACTED], and rse-bat",
		"seven of the tail: HRlcnk= stay":              "seven of the tail: HRlcnk= stay",
	} {
		if got := m.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	if got := New().Mask("Basic d2FybXVw"); got != "Basic d2FybXVw" {
		t.Errorf("a Masker of no secret changed %q", got)
	}
}

// TestMaskCases: an unpadded Basic credential (Pinot accepts it), a credential
// shorter than LeadRun (whole, standing alone only), and secrets of other kinds
// (a query's values) with their own mark, a number kept inside a longer figure.
func TestMaskCases(t *testing.T) {
	unpadded := Header("Basic YWRtaW46czNjcmV0UGFzc3cwcmQ") // admin:s3cretPassw0rd
	short := []Secret{Credential("x7q")}
	values := []Secret{{Text: "1796119200000", Mark: "?", Alone: true}, {Text: "Jane  Q. Customer", Mark: "?"}}
	for _, c := range []struct {
		secrets  []Secret
		in, want string
	}{
		{unpadded, "login failed for admin with password s3cretPassw0rd", "login failed for admin with password [REDACTED]"},
		{unpadded, "admin:s3cretPassw0rd", "admin:[REDACTED]"},
		{unpadded, "Authorization: Basic YWRtaW46czNjcmV0UGFzc3cwcmQ=", "Authorization: [REDACTED]"},
		{short, "token x7q refused", "token [REDACTED] refused"},
		{short, "token 'x7q'", "token '[REDACTED]'"},
		{short, "ax7q and x7qb stay", "ax7q and x7qb stay"},
		{values, "ts 1796119200000 and 17961192000001, v1796119200000", "ts ? and 17961192000001, v1796119200000"},
		{values, "IN ('Jane Q.\n Customer', 'Jane  Q. Customer')", "IN ('?', '?')"},
	} {
		if got := New(c.secrets...).Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPlainBesideEscape: a credential written plainly after something that only
// looks like an escape ("%4" before its "1…") is found as written.
func TestPlainBesideEscape(t *testing.T) {
	m := New(Credential("1bcdefghij"))
	if got := m.Mask("x %41bcdefghij y"); strings.Contains(got, "bcdefgh") {
		t.Errorf("Mask kept the credential: %q", got)
	}
}

// TestLineEscapesInPlainText: a page that escapes its line breaks and nothing else (as many log
// formatters do) wraps a value holding a backslash right after it: neither a plain read
// ("\\n" kept) nor a decoding one ("\\" read as one backslash) sees the value; a plain read that
// takes "\n" for white space does.
func TestLineEscapesInPlainText(t *testing.T) {
	m := New(Secret{Text: `Qzj00\00`, Mark: "?"})
	for _, in := range []string{`IN ('Qzj00\` + `\n` + `00')`, `IN ('Qzj00\` + `\r\n  ` + `00')`, `IN ('Qzj` + `\t` + `00\00')`} {
		if got := m.Mask(in); got != "IN ('?')" {
			t.Errorf("Mask(%q) = %q, want IN ('?')", in, got)
		}
	}
}

// TestSurrogatePairs: a JSON encoder that escapes every non-ASCII character writes one beyond
// U+FFFF as a UTF-16 surrogate pair; the value is found through it.
func TestSurrogatePairs(t *testing.T) {
	m := New(Secret{Text: "Qzj\U0001F600x", Mark: "?"})
	if got := m.Mask(`"\u0051\u007a\u006a\ud83d\ude00\u0078"`); got != `"?"` {
		t.Errorf("Mask = %q, want %q", got, `"?"`)
	}
}
