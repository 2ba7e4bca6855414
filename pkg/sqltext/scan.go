package sqltext

import (
	"errors"
	"fmt"
)

// kind is what a token is.
type kind int

const (
	word    kind = iota // keywords, names, numbers, operators: a run up to the next delimiter
	literal             // '…', a doubled quote inside
	ident               // "…" or `…`, a doubled quote inside
	punct               // one of ( ) , ;
	comment             // -- or // to the end of the line, or /* … */
)

// token is s[start:end]; open marks a quote or block comment that runs to the end
// of the text unclosed.
type token struct {
	kind       kind
	start, end int
	open       bool
}

// errUnterminatedComment is returned for a /* with no */ after it.
var errUnterminatedComment = errors.New("unterminated comment: expected every /* to be closed by */")

// tokens cuts s into tokens, white space dropped. It works on bytes: every
// delimiter is ASCII, so text that is not valid UTF-8 passes through untouched.
// An unclosed quote or comment ends the list with an open token and an error.
func tokens(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSpace(c):
			i++
		case c == '\'' || c == '"' || c == '`':
			end, closed := closeQuote(s, i)
			k := ident
			if c == '\'' {
				k = literal
			}
			out = append(out, token{kind: k, start: i, end: end, open: !closed})
			if !closed {
				return out, fmt.Errorf("unterminated quote: expected every %c to be closed", c)
			}
			i = end
		case commentAt(s, i):
			end, closed := closeComment(s, i)
			out = append(out, token{kind: comment, start: i, end: end, open: !closed})
			if !closed {
				return out, errUnterminatedComment
			}
			i = end
		case c == '(' || c == ')' || c == ',' || c == ';':
			out = append(out, token{kind: punct, start: i, end: i + 1})
			i++
		default:
			j := i + 1
			for j < len(s) && !endsWord(s, j) {
				j++
			}
			out = append(out, token{kind: word, start: i, end: j})
			i = j
		}
	}
	return out, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func endsWord(s string, i int) bool {
	switch c := s[i]; c {
	case '\'', '"', '`', '(', ')', ',', ';':
		return true
	default:
		return isSpace(c) || commentAt(s, i)
	}
}

// commentAt reports whether a comment starts at s[i]: "--", "//" or "/*", as in
// Calcite's lexer, which Pinot's parser uses.
func commentAt(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	a, b := s[i], s[i+1]
	return (a == '-' && b == '-') || (a == '/' && (b == '/' || b == '*'))
}

// closeQuote returns the end of the quoted text opening at s[i]; a doubled quote
// is an escaped one and does not close it.
func closeQuote(s string, i int) (end int, closed bool) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			j++
			continue
		}
		return j + 1, true
	}
	return len(s), false
}

// closeComment returns the end of the comment opening at s[i]. A line comment
// ends before its newline; a block comment after the first */ (they do not nest).
func closeComment(s string, i int) (end int, closed bool) {
	if s[i+1] != '*' {
		for j := i + 2; j < len(s); j++ {
			if s[j] == '\n' || s[j] == '\r' {
				return j, true
			}
		}
		return len(s), true
	}
	for j := i + 2; j+1 < len(s); j++ {
		if s[j] == '*' && s[j+1] == '/' {
			return j + 2, true
		}
	}
	return len(s), false
}
