package shapes

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

var (
	integerText = regexp.MustCompile(`^-?[0-9]{1,19}$`)
	// decimalText leaves out NaN and ±Infinity, which the broker writes as
	// strings and which are no SQL literal.
	decimalText = regexp.MustCompile(`^-?[0-9]{1,40}(\.[0-9]{1,40})?([eE][-+]?[0-9]{1,4})?$`)
)

// maxLiteralBytes keeps a long text value out of the SQL: a filter needs a
// value that exists, not every value.
const maxLiteralBytes = 128

// literal renders one sample value as a SQL literal of the column's type; ok is
// false for values that cannot be one (null, arrays, non-finite numbers, values
// of the wrong kind, over-long or control-character text).
func literal(c column, v any) (string, bool) {
	text, isString := scalarText(v)
	if text == "" && !isString {
		return "", false
	}
	switch c.typ {
	case "INT", "LONG":
		return text, integerText.MatchString(text)
	case "FLOAT", "DOUBLE", "BIG_DECIMAL":
		return text, decimalText.MatchString(text)
	case "BOOLEAN":
		return text, text == "true" || text == "false"
	case "TIMESTAMP":
		// The broker writes TIMESTAMP as "2024-01-02 03:04:05.0"; epoch millis also compare.
		if !isString {
			return text, integerText.MatchString(text)
		}
		return quotedText(text)
	case "STRING":
		if !isString {
			return "", false
		}
		return quotedText(text)
	}
	return "", false
}

// scalarText is a JSON scalar's text and whether it was a JSON string.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), false
	case bool:
		return strconv.FormatBool(x), false
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), false
	}
	return "", false
}

func quotedText(s string) (string, bool) {
	if !plainText(s) {
		return "", false
	}
	return pinot.QuoteString(s), true
}

// plainText is text fit for a literal or a regular expression: short, UTF-8,
// no control characters.
func plainText(s string) bool {
	return len(s) <= maxLiteralBytes && utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// values returns up to n distinct literals of c found in the sample, in row order.
func (t *table) values(c column, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range t.sample {
		if len(out) >= n {
			break
		}
		if lit, ok := literal(c, r[c.name]); ok && !seen[lit] {
			seen[lit] = true
			out = append(out, lit)
		}
	}
	return out
}

// bounds returns the smallest and largest sample literal of c. Numbers compare
// as numbers, quoted text as text; the kind of the first value decides.
func (t *table) bounds(c column) (lo, hi string, ok bool) {
	vals := t.values(c, len(t.sample))
	if len(vals) == 0 {
		return "", "", false
	}
	quoted := strings.HasPrefix(vals[0], "'")
	less := func(a, b string) bool {
		if quoted {
			return a < b
		}
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return x < y
	}
	lo, hi = vals[0], vals[0]
	for _, v := range vals[1:] {
		if strings.HasPrefix(v, "'") != quoted {
			continue
		}
		if less(v, lo) {
			lo = v
		}
		if less(hi, v) {
			hi = v
		}
	}
	return lo, hi, true
}

// maxPrefixRunes is how much of a sample string a REGEXP_LIKE prefix keeps.
const maxPrefixRunes = 8

// regexpPrefix is a Java regular expression matching strings that start like
// the first sample value of c; "^." (any non-empty string) without one.
func (t *table) regexpPrefix(c column) string {
	for _, r := range t.sample {
		s, isString := r[c.name].(string)
		if !isString || s == "" || !plainText(s) {
			continue
		}
		var b strings.Builder
		b.WriteByte('^')
		for i, ch := range []rune(s) {
			if i == maxPrefixRunes {
				break
			}
			if strings.ContainsRune(`\^$.|?*+()[]{}`, ch) {
				b.WriteByte('\\')
			}
			b.WriteRune(ch)
		}
		return b.String()
	}
	return "^."
}
