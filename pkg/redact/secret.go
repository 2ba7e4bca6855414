package redact

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Mark replaces each masked piece of a credential.
const Mark = "[REDACTED]"

const (
	// LeadRun is the fewest leading characters of a credential masked on their
	// own (an echo cut inside it). Three base64 characters of a Basic credential
	// encode the first two bytes of "user:password": with any user name nothing of
	// the password; three of a JWT are "eyJ", those of every JWT. A shorter
	// minimum would mask innocent text that happens to hold a letter or two of it.
	LeadRun = 4
	// Run is the fewest characters of a credential, from anywhere in it, masked on
	// their own (a proxy that shows a token's tail). A credential's inner pieces
	// look like ordinary text more often than its start does (base64 of a
	// password is letters and digits), so this bound is longer.
	Run = 8
)

// Secret is one text to mask and which pieces of it count. Its length, Lead and
// the runs count characters (runes) with white space left out: white space in
// the text matched may fall anywhere.
type Secret struct {
	// Text is the secret as written (not escaped).
	Text string
	// Mark replaces each piece found.
	Mark string
	// Lead > 0 (a credential): a piece holding Lead or more of Text's leading
	// characters (all of them when it has fewer) is masked, and so is any piece
	// of Run or more characters from anywhere in it. 0: only Text whole.
	Lead int
	// Alone: a piece is masked only where no letter, digit, '_' or '.' touches it
	// (a short secret, a number: inside a longer word it is that word's).
	Alone bool
}

// Credential is a credential's secret: any LeadRun leading characters, and any
// Run characters from anywhere in it. One shorter than Run has no such run: it
// is masked whole and by its leading pieces of LeadRun or more. One shorter
// than LeadRun is masked only whole and standing alone: a piece of one or two
// letters could not be told from ordinary text, and the whole of it inside a
// longer word is that word's.
func Credential(text string) Secret {
	if utf8.RuneCountInString(strings.Join(strings.Fields(text), "")) < LeadRun {
		return Secret{Text: text, Mark: Mark, Alone: true}
	}
	return Secret{Text: text, Mark: Mark, Lead: LeadRun}
}

// Header is what masks an Authorization header value: the value itself with its
// scheme word ("Basic …": its runs, and its leading ones from the credential's
// first characters on, as the scheme word alone is no secret), the credential
// after the scheme, and for Basic the decoded password (the user name is no
// secret). A value without a scheme word is one credential.
func Header(value string) []Secret {
	value = strings.TrimSpace(value)
	scheme, cred, ok := strings.Cut(value, " ")
	cred = strings.TrimSpace(cred)
	if !ok || cred == "" {
		if value == "" {
			return nil
		}
		return []Secret{Credential(value)}
	}
	out := []Secret{
		{Text: value, Mark: Mark, Lead: utf8.RuneCountInString(scheme) + LeadRun},
		Credential(cred),
	}
	if strings.EqualFold(scheme, "basic") {
		out = append(out, basicForms(cred)...)
	}
	return out
}

// basicForms is what a Basic credential adds: its other base64 form (padded or
// not) and its decoded password, what follows the first ':' of
// "user:password" (all of it without one). Pinot compares Basic tokens with
// their '=' padding removed (AuthUtils.normalizeBase64Token): a credential
// sent without padding is accepted, and an echo may show either form.
func basicForms(cred string) []Secret {
	dec, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(cred, "="))
	if err != nil || len(dec) == 0 {
		return nil
	}
	var out []Secret
	for _, form := range []string{base64.StdEncoding.EncodeToString(dec), base64.RawStdEncoding.EncodeToString(dec)} {
		if form != cred {
			out = append(out, Credential(form))
		}
	}
	pw := string(dec)
	if _, p, ok := strings.Cut(pw, ":"); ok {
		pw = p
	}
	if pw != "" {
		out = append(out, Credential(pw))
	}
	return out
}
