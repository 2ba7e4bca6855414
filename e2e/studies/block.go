package studies

import (
	"fmt"
	"strings"
)

const (
	openMarker  = "<!-- generated:"
	closeMarker = "<!-- /generated -->"
)

// ParseError is a malformed block, at its line of the page.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func parseErr(line int, format string, args ...any) error {
	return &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Block is one generated block of a page.
type Block struct {
	// Line is the opening comment's, from 1.
	Line int
	View string
	// Args are the words after the view on the comment's first line; Spec its further lines
	// (trimmed, blank ones left out).
	Args, Spec []string
	// Body is the text between the comment and the closing marker, as committed.
	Body string
	// body and end index the page's lines: the body's first, and the closing marker's.
	body, end int
}

// Parse finds doc's blocks. Markers inside a fenced code block are text (a page may show the
// syntax); a block opened inside another, one never closed, a closing marker with no block open
// and text after an opening comment's --> are errors, at their line.
func Parse(doc string) ([]Block, error) {
	lines := strings.Split(doc, "\n")
	var blocks []Block
	var cur *Block
	fenced := false
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if cur != nil {
			switch {
			case strings.HasPrefix(t, openMarker):
				return nil, parseErr(i+1, "a block opened inside the block of line %d (close it with %s first)", cur.Line, closeMarker)
			case t == closeMarker:
				cur.end = i
				cur.Body = strings.Join(lines[cur.body:i], "\n")
				blocks = append(blocks, *cur)
				cur = nil
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		if t == closeMarker {
			return nil, parseErr(i+1, "%s with no block open", closeMarker)
		}
		if !strings.HasPrefix(t, openMarker) {
			continue
		}
		b, last, err := opening(lines, i)
		if err != nil {
			return nil, err
		}
		cur, i = b, last
	}
	if cur != nil {
		return nil, parseErr(cur.Line, "block never closed by %s", closeMarker)
	}
	return blocks, nil
}

// opening reads the opening comment that begins at lines[i]: its view, args and spec lines,
// and the index of the line that ends it with -->.
func opening(lines []string, i int) (*Block, int, error) {
	b := &Block{Line: i + 1}
	rest := strings.TrimPrefix(strings.TrimSpace(lines[i]), openMarker)
	var text []string
	j := i
	for {
		if k := strings.Index(rest, "-->"); k >= 0 {
			if strings.TrimSpace(rest[k+3:]) != "" {
				return nil, 0, parseErr(j+1, "text after the --> that ends the opening comment of line %d", b.Line)
			}
			text = append(text, strings.TrimSpace(rest[:k]))
			break
		}
		text = append(text, strings.TrimSpace(rest))
		if j++; j == len(lines) {
			return nil, 0, parseErr(b.Line, "opening comment never ended by -->")
		}
		rest = strings.TrimSpace(lines[j])
		if strings.HasPrefix(rest, openMarker) || rest == closeMarker {
			return nil, 0, parseErr(j+1, "opening comment of line %d not ended by --> before this marker", b.Line)
		}
	}
	words := strings.Fields(text[0])
	if len(words) == 0 {
		return nil, 0, parseErr(b.Line, "no view named after %q", openMarker)
	}
	b.View, b.Args = words[0], words[1:]
	for _, l := range text[1:] {
		if l != "" {
			b.Spec = append(b.Spec, l)
		}
	}
	b.body = j + 1
	return b, j, nil
}

// BodyOf is a view's output as a block holds it: after a blank line, followed by one, nothing
// for an empty output.
func BodyOf(rendered string) string {
	r := strings.Trim(rendered, "\n")
	if r == "" {
		return ""
	}
	return "\n" + r + "\n"
}

// Rewrite is doc with every block's body replaced by render's output for it.
func Rewrite(doc string, render func(Block) (string, error)) (string, error) {
	blocks, err := Parse(doc)
	if err != nil {
		return "", err
	}
	lines := strings.Split(doc, "\n")
	var out []string
	last := 0
	for _, b := range blocks {
		r, err := render(b)
		if err != nil {
			return "", err
		}
		out = append(out, lines[last:b.body]...)
		if body := BodyOf(r); body != "" {
			out = append(out, strings.Split(body, "\n")...)
		}
		last = b.end
	}
	return strings.Join(append(out, lines[last:]...), "\n"), nil
}
