package redact

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// view is a text as the masker reads it: its characters with white space left
// out and, when decoding, each escape read as the character it stands for.
// Where a character was read from is found again by reading on from the last
// mark before it, so a view costs about its text's size: an answer can be MiBs,
// and several probes can fail at once.
type view struct {
	s      string
	decode bool
	// lineEscapes: a plain read that still takes an escaped \n, \r or \t for white space, as a
	// page that escapes its line breaks and nothing else writes them (many log formatters do).
	lineEscapes bool
	norm        string // the characters read
	marks       []mark // every markEvery-th character: where it is in norm and in s
}

// mark is where one character starts in the view's norm and in its text
// (int32: a text masked is an answer, at most MiBs).
type mark struct{ norm, src int32 }

// markEvery is how many characters one mark covers: at most that many are read
// again to find one.
const markEvery = 32

// read reads s; decode also reads escapes (see charAt) and escaped white space.
// A text is read both ways when it may hold an escape: a page may write a
// secret plainly beside something that only looks like an escape ("%41…"),
// which a decoding read would take for another character.
func read(s string, decode bool) view { return readView(view{s: s, decode: decode}) }

// readLineEscaped reads s plainly but for its escaped white space (see view.lineEscapes).
func readLineEscaped(s string) view { return readView(view{s: s, lineEscapes: true}) }

func readView(v view) view {
	s := v.s
	var norm strings.Builder
	norm.Grow(len(s))
	for i, n := 0, 0; ; n++ {
		c, start, next := v.step(i)
		if start == len(s) {
			break
		}
		if n%markEvery == 0 {
			v.marks = append(v.marks, mark{int32(norm.Len()), int32(start)})
		}
		norm.WriteRune(c)
		i = next
	}
	v.norm = norm.String()
	return v
}

// step reads the first character at or after s[i] that is no white space: the
// character, where it starts, and where the next one may; start is len(s) when
// there is none.
func (v *view) step(i int) (c rune, start, next int) {
	s := v.s
	for i < len(s) {
		if (v.decode || v.lineEscapes) && escapedSpace(s, i) {
			i += 2
			continue
		}
		if v.decode {
			c, next = charAt(s, i)
		} else {
			var size int
			c, size = utf8.DecodeRuneInString(s[i:])
			next = i + size
		}
		if !unicode.IsSpace(c) {
			return c, i, next
		}
		i = next
	}
	return 0, len(s), len(s)
}

// bytes are the text's bytes the characters at norm[from:to] were read from.
func (v *view) bytes(from, to int) (start, end int) {
	start, _ = v.locate(from)
	_, size := utf8.DecodeLastRuneInString(v.norm[:to])
	_, end = v.locate(to - size)
	return start, end
}

// locate finds the character at norm[b:] in the text: where it starts and
// where the next one may, read on from the last mark before it.
func (v *view) locate(b int) (start, next int) {
	k := sort.Search(len(v.marks), func(k int) bool { return int(v.marks[k].norm) > b }) - 1
	at, i := int(v.marks[k].norm), int(v.marks[k].src)
	for {
		_, start, next = v.step(i)
		if at == b {
			return start, next
		}
		_, size := utf8.DecodeRuneInString(v.norm[at:])
		at, i = at+size, next
	}
}

// escapedSpace reports an escaped \n, \r or \t at s[i].
func escapedSpace(s string, i int) bool {
	return s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't')
}

// hasEscape reports whether a decoding read of s could differ from a plain one.
func hasEscape(s string) bool { return strings.ContainsAny(s, `\&%`) }

// charAt decodes the character written at s[i], escaped or not: JSON's \/ \"
// \\ and \uXXXX, an HTML character reference (&#43; &#x2B;), percent-encoding
// (%2B).
func charAt(s string, i int) (c rune, next int) {
	switch s[i] {
	case '\\':
		if i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '"' || s[i+1] == '\\') {
			return rune(s[i+1]), i + 2
		}
		if len(s)-i >= 6 && (s[i+1] == 'u' || s[i+1] == 'U') {
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				// A character beyond U+FFFF is written as a UTF-16 surrogate pair (\ud83d\ude00), as
				// JSON encoders that escape every non-ASCII character write it.
				if utf16.IsSurrogate(rune(v)) && len(s)-i >= 12 && s[i+6] == '\\' && (s[i+7] == 'u' || s[i+7] == 'U') {
					if w, err := strconv.ParseUint(s[i+8:i+12], 16, 32); err == nil {
						if r := utf16.DecodeRune(rune(v), rune(w)); r != utf8.RuneError {
							return r, i + 12
						}
					}
				}
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
