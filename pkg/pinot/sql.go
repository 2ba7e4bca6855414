package pinot

import "strings"

// QuoteIdent quotes a table or column name for Pinot SQL (Calcite): inside
// double quotes a double quote is doubled. Quoting every name keeps reserved
// words ("timestamp", "date"), mixed case and odd characters working.
func QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QuoteString makes a SQL string literal: inside single quotes a single quote
// is doubled; Calcite knows no backslash escapes.
func QuoteString(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}
