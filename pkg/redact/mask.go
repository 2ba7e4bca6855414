package redact

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Masker masks a set of secrets in text. Building one indexes every Run
// characters in a row of each credential, so masking a text reads it once
// whatever its length: one lookup per character. Build one for the text at
// hand (an answer quoted in an error): nothing is kept for the texts that are
// never quoted.
type Masker struct {
	forms   []form
	windows map[string]string // every Run characters in a row of a credential → its mark
}

// form is a secret as its characters are matched: written as given, or with
// its escapes read (a password holding "%41" may be echoed as itself or
// decoded).
type form struct {
	Secret
	norm   string // its characters, white space left out
	needle string // the fewest leading characters that make a piece
}

// New builds a Masker for secrets; one with none masks nothing.
func New(secrets ...Secret) *Masker {
	m := &Masker{}
	for _, s := range secrets {
		for _, decode := range []bool{false, true} {
			norm := read(s.Text, decode).norm
			if norm == "" || slices.ContainsFunc(m.forms, func(f form) bool { return f.norm == norm && f.Secret == s }) {
				continue
			}
			// at[i] is where character i starts, at[n] the end.
			var at []int
			for i := range norm {
				at = append(at, i)
			}
			n := len(at)
			at = append(at, len(norm))
			need := n
			if s.Lead > 0 && s.Lead < n {
				need = s.Lead
			}
			m.forms = append(m.forms, form{Secret: s, norm: norm, needle: norm[:at[need]]})
			for i := 0; s.Lead > 0 && i+Run <= n; i++ {
				if m.windows == nil {
					m.windows = map[string]string{}
				}
				if w := norm[at[i]:at[i+Run]]; m.windows[w] == "" {
					m.windows[w] = s.Mark
				}
			}
		}
	}
	return m
}

// span is a piece of the text to mask: its bytes and what replaces them.
type span struct {
	start, end int
	mark       string
}

// Mask replaces every piece of s a secret counts (see Secret) with its Mark.
// Pieces that overlap or touch are masked as one, with the first one's mark.
// Pieces start and end on character boundaries: valid UTF-8 stays valid.
func (m *Masker) Mask(s string) string {
	if m == nil || len(m.forms) == 0 || s == "" {
		return s
	}
	spans := m.find(read(s, false), nil)
	if hasEscape(s) {
		spans = m.find(read(s, true), spans)
		if strings.Contains(s, `\`) {
			spans = m.find(readLineEscaped(s), spans)
		}
	}
	return replace(s, spans)
}

// find adds the pieces of s, as v reads it, that a secret counts.
func (m *Masker) find(v view, spans []span) []span {
	add := func(from, to int, mark string, alone bool) {
		start, end := v.bytes(from, to)
		if alone && (wordRune(utf8.DecodeLastRuneInString(v.s[:start])) || wordRune(utf8.DecodeRuneInString(v.s[end:]))) {
			return
		}
		spans = append(spans, span{start, end, mark})
	}
	norm := v.norm
	// Whole secrets and credentials' leading pieces: each place the form's
	// needle is read. A leading piece is followed up to Run characters: past
	// that, the runs below cover it.
	for k := range m.forms {
		f := &m.forms[k]
		for b := 0; b < len(norm); {
			x := strings.Index(norm[b:], f.needle)
			if x < 0 {
				break
			}
			from, to := b+x, b+x+len(f.needle)
			for n, q := utf8.RuneCountInString(f.needle), len(f.needle); f.Lead > 0 && n < Run && to < len(norm) && q < len(f.norm); n++ {
				c, size := utf8.DecodeRuneInString(norm[to:])
				fc, fsize := utf8.DecodeRuneInString(f.norm[q:])
				if c != fc {
					break
				}
				to, q = to+size, q+fsize
			}
			add(from, to, f.Mark, f.Alone)
			_, size := utf8.DecodeRuneInString(norm[from:])
			b = from + size
		}
	}
	if m.windows == nil {
		return spans
	}
	// Runs from anywhere: every Run characters in a row of the text that a
	// credential holds. A longer run is the union of its windows; windows that
	// overlap are gathered as they come, so a long run is one piece.
	var starts [Run]int // where the last Run characters start
	open, end, mark := -1, 0, ""
	for n, at := 0, 0; at < len(norm); n++ {
		starts[n%Run] = at
		_, size := utf8.DecodeRuneInString(norm[at:])
		at += size
		if n+1 < Run {
			continue
		}
		from := starts[(n+1)%Run]
		w, ok := m.windows[norm[from:at]]
		if !ok {
			continue
		}
		if open >= 0 && from > end {
			add(open, end, mark, false)
			open = -1
		}
		if open < 0 {
			open, mark = from, w
		}
		end = at
	}
	if open >= 0 {
		add(open, end, mark, false)
	}
	return spans
}

// wordRune is a character that makes a piece touching it part of a longer word
// or figure (size is DecodeRune's: 0 at either end of the text).
func wordRune(c rune, size int) bool {
	return size > 0 && (c == '_' || c == '.' || unicode.IsLetter(c) || unicode.IsDigit(c))
}

// replace writes s with each stretch of spans replaced by its mark.
func replace(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	var out strings.Builder
	at := 0
	for k := 0; k < len(spans); {
		sp := spans[k]
		for k++; k < len(spans) && spans[k].start <= sp.end; k++ {
			sp.end = max(sp.end, spans[k].end)
		}
		out.WriteString(s[at:sp.start])
		out.WriteString(sp.mark)
		at = sp.end
	}
	out.WriteString(s[at:])
	return out.String()
}
