package redact

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// fuzzMark stands in for Mark in the fuzz target: a character the secret is
// kept from holding, so no run of the secret can form across it.
const fuzzMark = "\uffff"

// FuzzMaskRuns: a credential's piece from any offset, of any length, wrapped by
// white space at a place the input picks, between two pads. No output may keep
// Run characters in a row of the credential, nor its first LeadRun, read with
// white space left out (the masker's plain read, redone here apart from it); a
// text without any of the credential's characters is left as it is.
func FuzzMaskRuns(f *testing.F) {
	f.Add("eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2VuLTEyMzQ1Ng", uint8(20), uint8(16), uint8(5), "Bearer ...", " (expired)")
	f.Add("d2FybXVwOmhvcnNlLWJhdHRlcnk=", uint8(0), uint8(4), uint8(1), "Authorization: Basic ", "")
	f.Add("horse-battery", uint8(2), uint8(8), uint8(3), "pw=", "\n")
	f.Add("aaaaaaaaaaab", uint8(1), uint8(11), uint8(0), "aaaa", "b")
	f.Add("p%41ss-w0rd-%2F", uint8(0), uint8(15), uint8(7), "%", "&#")
	f.Fuzz(func(t *testing.T, cred string, from, n, wrap uint8, pad1, pad2 string) {
		if !utf8.ValidString(cred) || !utf8.ValidString(pad1) || !utf8.ValidString(pad2) || strings.Contains(cred, fuzzMark) {
			t.Skip()
		}
		secret := Credential(cred)
		secret.Mark = fuzzMark
		m := New(secret)
		c := []rune(squeeze(cred))
		// The piece: c[i:j], with white space inside it where wrap says.
		i := int(from) % (len(c) + 1)
		j := min(len(c), i+int(n))
		piece := string(c[i:j])
		if k := int(wrap) % (len(c[i:j]) + 1); k > 0 {
			p := []rune(piece)
			piece = string(p[:k]) + []string{"\n", " \t ", "\r\n  "}[int(wrap)%3] + string(p[k:])
		}
		text := pad1 + piece + pad2
		out := m.Mask(text)
		if !utf8.ValidString(out) {
			t.Fatalf("Mask(%q) = %q: not valid UTF-8", text, out)
		}
		for _, part := range strings.Split(squeeze(out), fuzzMark) {
			if p := runOf(part, c); p != "" {
				t.Fatalf("credential %q, text %q: output %q keeps %q", cred, text, out, p)
			}
		}
		// Innocent text: the pads without a character of the credential, as
		// written or with its escapes read.
		decoded := read(cred, true).norm
		innocent := strings.Map(func(r rune) rune {
			if strings.ContainsRune(cred, r) || strings.ContainsRune(decoded, r) {
				return -1
			}
			return r
		}, pad1+pad2)
		// An escape in the pads may still spell one of its characters (&#0; is NUL): such text is
		// the credential written escaped, not innocent.
		if strings.ContainsFunc(read(innocent, true).norm, func(r rune) bool {
			return strings.ContainsRune(cred, r) || strings.ContainsRune(decoded, r)
		}) {
			return
		}
		if got := m.Mask(innocent); got != innocent {
			t.Fatalf("credential %q: Mask(%q) = %q, want it unchanged", cred, innocent, got)
		}
	})
}

// squeeze drops white space.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// runOf returns a piece of text the masker must not leave: Run characters in a
// row of c, or (c at least LeadRun long) its first LeadRun.
func runOf(text string, c []rune) string {
	if len(c) >= LeadRun {
		if lead := string(c[:LeadRun]); strings.Contains(text, lead) {
			return lead
		}
	}
	for i := 0; i+Run <= len(c); i++ {
		if p := string(c[i : i+Run]); strings.Contains(text, p) {
			return p
		}
	}
	return ""
}
