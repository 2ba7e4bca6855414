package sqltext

import "strings"

// MaskMark is what Mask writes in place of a literal.
const MaskMark = "?"

// Mask returns sql with each literal written as MaskMark: quoted text ('…', an
// unclosed one too) and numbers (42, 1.5, 1e3; a sign stays). Names, quoted or
// not, keywords, comments, SET statements (query options, not data) and the
// counts after LIMIT and OFFSET stay as written.
func Mask(sql string) string {
	spans := literalSpans(sql)
	if len(spans) == 0 {
		return sql
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(sql[at:sp[0]])
		// A quote ends a word: where it did, a space keeps the words apart (a
		// number is a word's part already).
		quoted := sql[sp[0]] == '\''
		if quoted && sp[0] > 0 && !endsWord(sql, sp[0]-1) {
			b.WriteByte(' ')
		}
		b.WriteString(MaskMark)
		if quoted && sp[1] < len(sql) && !endsWord(sql, sp[1]) {
			b.WriteByte(' ')
		}
		at = sp[1]
	}
	b.WriteString(sql[at:])
	return b.String()
}

// Literals returns the literals Mask hides, as written: quoted text with its
// quotes (and any doubled quote inside), numbers as they stand.
func Literals(sql string) []string {
	var out []string
	for _, sp := range literalSpans(sql) {
		out = append(out, sql[sp[0]:sp[1]])
	}
	return out
}

// literalSpans lists the byte spans of sql's literals, in order.
func literalSpans(sql string) [][2]int {
	toks, _ := tokens(sql) // an unclosed quote ends the list with its open literal
	var spans [][2]int
	start, inSet, count := true, false, false
	for _, t := range toks {
		text := sql[t.start:t.end]
		if t.kind == comment {
			continue
		}
		if start {
			inSet, start = t.kind == word && strings.EqualFold(text, "SET"), false
		}
		wasCount := count
		count = false
		switch t.kind {
		case punct:
			start = text == ";"
			count = wasCount && text == "," // LIMIT offset, count
		case literal:
			if !inSet {
				spans = append(spans, [2]int{t.start, t.end})
			}
		case word:
			switch {
			case inSet:
			case strings.EqualFold(text, "LIMIT") || strings.EqualFold(text, "OFFSET"):
				count = true
			case wasCount && isNumber(text):
				count = true
			default:
				spans = append(spans, numberSpans(sql, t.start, t.end)...)
			}
		}
	}
	return spans
}

// numberSpans finds the numbers in the word sql[start:end]: a run of digits
// (with one '.', and an exponent) that no letter, digit, '_', '$' or '.'
// touches, so names such as col1, v2_x or db.t2 keep their digits. A word is a run up to white
// space, a quote or ( ) , ; — so "x>=5" is one word and its 5 a number.
func numberSpans(sql string, start, end int) [][2]int {
	var spans [][2]int
	for i := start; i < end; {
		c := sql[i]
		digitStart := isDigit(c) || (c == '.' && i+1 < end && isDigit(sql[i+1]))
		if !digitStart || (i > start && partOfName(sql[i-1])) {
			i++
			continue
		}
		j := i
		dot := false
		for j < end && (isDigit(sql[j]) || (sql[j] == '.' && !dot)) {
			dot = dot || sql[j] == '.'
			j++
		}
		if j < end && (sql[j] == 'e' || sql[j] == 'E') {
			k := j + 1
			if k < end && (sql[k] == '+' || sql[k] == '-') {
				k++
			}
			if k < end && isDigit(sql[k]) {
				for k < end && isDigit(sql[k]) {
					k++
				}
				j = k
			}
		}
		if j < end && partOfName(sql[j]) {
			// 1abc, 1.2.3: part of a name or a version, not a number.
			for j < end && partOfName(sql[j]) {
				j++
			}
			i = j
			continue
		}
		spans = append(spans, [2]int{i, j})
		i = j
	}
	return spans
}

// isNumber reports whether w is one number as a whole.
func isNumber(w string) bool {
	sp := numberSpans(w, 0, len(w))
	return len(sp) == 1 && sp[0] == [2]int{0, len(w)}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// partOfName is a byte a number may not touch: a name's, or a dot.
func partOfName(c byte) bool { return c == '.' || isNameByte(c) }

// isNameByte is a byte a name may hold: a number touching one is part of it.
func isNameByte(c byte) bool {
	return c == '_' || c == '$' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}
