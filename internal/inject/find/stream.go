package find

import (
	"bytes"
	"strings"
)

// Document is one YAML document of a manifest stream, kept as the exact bytes it came in with so
// that every document inject does not change is written back byte for byte.
type Document struct {
	Separator string // the "---" line that opened it, newline included; empty for the first one
	Body      string // everything up to the next separator line
}

// SplitStream cuts a multi-document stream at its "---" lines. A "---" at column 0 always ends
// the document before it (block scalars are indented), so a line scan is exact and, unlike a
// decoder, loses nothing: comments, spacing and key order of untouched documents survive.
func SplitStream(in []byte) []Document {
	var docs []Document
	cur := Document{}
	var body strings.Builder
	for _, line := range bytes.SplitAfter(in, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if isSeparator(line) {
			cur.Body = body.String()
			if cur.Separator != "" || cur.Body != "" {
				docs = append(docs, cur)
			}
			cur = Document{Separator: string(line)}
			body.Reset()
			continue
		}
		body.Write(line)
	}
	cur.Body = body.String()
	if cur.Separator != "" || cur.Body != "" {
		docs = append(docs, cur)
	}
	return docs
}

// isSeparator reports whether a line is a YAML document start marker ("---" alone or followed
// by whitespace).
func isSeparator(line []byte) bool {
	l := bytes.TrimRight(line, "\r\n")
	if !bytes.HasPrefix(l, []byte("---")) {
		return false
	}
	rest := l[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t'
}

// JoinStream is the inverse of SplitStream.
func JoinStream(docs []Document) []byte {
	var out bytes.Buffer
	for _, d := range docs {
		out.WriteString(d.Separator)
		out.WriteString(d.Body)
	}
	return out.Bytes()
}
