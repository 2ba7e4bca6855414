// Package markdown reads the repository's own Markdown for the tests that keep it
// true: the rows of a table under a heading, the links of a file and the anchors
// its headings make. It knows the little of Markdown those documents use.
package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Table returns the body rows of the first table after the line heading (such
// as "## Metrics"), each row's cells trimmed; a '|' inside a code span or
// escaped as \| stays in its cell.
func Table(doc, heading string) ([][]string, error) {
	lines := strings.Split(doc, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == heading {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no heading %q", heading)
	}
	var rows [][]string
	for i := start; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "#") && rows == nil {
			break // the next section, and no table under this heading
		}
		if !strings.HasPrefix(l, "|") {
			if rows != nil {
				break
			}
			continue
		}
		rows = append(rows, cells(l))
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("no table under heading %q", heading)
	}
	return rows[2:], nil // the header row and its |---| line
}

// cells splits one table row on the '|' outside code spans.
func cells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var out []string
	var cell strings.Builder
	inCode := false
	for i := 0; i < len(row); i++ {
		switch c := row[i]; {
		case c == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			cell.WriteByte(c)
		case c == '|' && !inCode:
			out = append(out, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(c)
		}
	}
	return append(out, strings.TrimSpace(cell.String()))
}

// Link is one inline link or image of a document: its target as written.
type Link struct {
	Target string
	Line   int
}

var (
	linkRE     = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	anchorRE   = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
)

// Links lists doc's inline links and images, outside code blocks and code spans.
func Links(doc string) []Link {
	var out []Link
	forProse(doc, func(n int, line string) {
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			out = append(out, Link{Target: m[1], Line: n})
		}
	})
	return out
}

// Anchors are the fragments doc's headings answer to, as GitHub makes them (a
// repeated heading gets -1, -2, ...), and any <a id="..."> of its own.
func Anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	forProse(doc, func(_ int, line string) {
		for _, m := range anchorRE.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		text := strings.TrimLeft(line, "#")
		if len(text) == len(line) || !strings.HasPrefix(text, " ") {
			return
		}
		a := slug(text)
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	})
	return out
}

// slug is GitHub's heading anchor: lower case, letters, digits, '_' and '-'
// kept, spaces turned to '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// forProse calls fn with each line (numbered from 1) outside fenced code blocks.
func forProse(doc string, fn func(n int, line string)) {
	fenced := false
	for i, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			fn(i+1, line)
		}
	}
}
