package pinot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// fuzzCredentials are the headers the fuzz target echoes, and the secret parts
// no output may keep minSecretRunFuzz characters of: the credential after its
// scheme and, for Basic, the decoded password.
var fuzzCredentials = []struct{ header, password string }{
	{"Basic d2FybXVwLXNpZGVjYXI6ZnV6ei1ob3JzZS1iYXR0ZXJ5LTQxNw==", "fuzz-horse-battery-417"}, // warmup-sidecar:…
	{"Basic YTpwK3cvcT0/Pz4+", "p+w/q=??>>"},                                                 // a:…, a one-letter user; + and / in the token
	{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3YXJtdXAifQ.c2lnbmF0dXJlLXNlY3JldC0xMjM0NTY", ""},
	{"s3cr3t-T0ken-W1th0ut-Sch3me", ""},                     // a header value with no scheme word
	{"Basic YWRtaW46czNjcmV0UGFzc3cwcmQ", "s3cretPassw0rd"}, // admin:…, without its '=' padding (Pinot accepts it)
}

// minSecretRunFuzz is the property's bound: shorter pieces are allowed through
// (a cut may leave up to minSecretRun-1 leading characters).
const minSecretRunFuzz = 4

// fuzzValueMark starts every sampled value the fuzz target puts in its query:
// no output may hold it (its whole value or the start of it, cut), nor the
// start of the query's long number.
const fuzzValueMark, fuzzNumber = "Qzj", "1796119200000"

// FuzzEchoedCredential: a broker or proxy answer that echoes what the request
// carried. The credential — whole, cut short by the page itself, bare or with
// its scheme, decoded, or only a run of 8 or more from its middle or tail — and
// the query with a sampled value in it — as sent, with its white space folded
// by the broker, or the value alone — JSON- or HTML- or percent-escaped, or
// wrapped, at an offset the input chooses around the 200-character cut, on the
// query path (HTTP error, unparsable 200, a Pinot exception) and, for the
// credential, the httpError path. No output may hold minSecretRunFuzz
// characters in a row of the credential or its password, nor the start of the
// value or of the number, however encoded.
func FuzzEchoedCredential(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), uint8(0), uint16(160), uint16(0), "HTTP 502 Bad Gateway", "</pre>", "")
	f.Add(uint8(0), uint8(1), uint8(1), uint8(1), uint16(180), uint16(9), "{\"error\":\"", "\"}", "x")
	f.Add(uint8(1), uint8(3), uint8(2), uint8(2), uint16(190), uint16(3), "<html>", "", "")
	f.Add(uint8(2), uint8(0), uint8(5), uint8(3), uint16(175), uint16(30), "Authorization: ", " more", "")
	f.Add(uint8(3), uint8(0), uint8(3), uint8(4), uint16(200), uint16(5), "x", "y", "")
	f.Add(uint8(1), uint8(2), uint8(4), uint8(0), uint16(199), uint16(0), "\\", "\u00e9", "")
	f.Add(uint8(4), uint8(4), uint8(0), uint8(0), uint16(150), uint16(21), "token ...", " expired", "")
	f.Add(uint8(2), uint8(4), uint8(6), uint8(3), uint16(196), uint16(40), "", "", "")
	// The query echoed with its value cut by the 200-character limit, folded by
	// the broker, and the value alone cut.
	f.Add(uint8(0), uint8(5), uint8(0), uint8(1), uint16(100), uint16(0), "Caught exception while parsing query: ", "", "jane.doe.private@example.com")
	f.Add(uint8(0), uint8(6), uint8(5), uint8(0), uint16(30), uint16(0), "", "", "Jane  Q.  Customer")
	f.Add(uint8(0), uint8(7), uint8(1), uint8(2), uint16(180), uint16(0), "no match for ", "", "it's  \t here")
	f.Fuzz(func(t *testing.T, cred, form, enc, path uint8, offset, keep uint16, pad1, pad2, value string) {
		c := fuzzCredentials[int(cred)%len(fuzzCredentials)]
		secrets := secretParts(c.header, c.password)
		values := []string{fuzzValueMark, fuzzNumber[:5]}
		// Pads that already hold a piece of a secret would be no leak of ours.
		for _, pad := range []string{pad1, pad2} {
			if p := secretPiece(normalizeEcho(pad), secrets); p != "" || pieceIn(normalizeEcho(pad), values) != "" {
				t.Skip()
			}
		}
		sql := fuzzQuery(value)
		echo := echoForm(c.header, c.password, sql, form, int(keep))
		// A page that cut the echo itself keeps at least minSecretRunFuzz characters
		// (fewer are allowed through by design).
		if k := int(keep); form%8 < 4 && k > 0 && k < len(echo) {
			echo = echo[:max(k, minSecretRunFuzz+schemeLen(echo))]
		}
		echo = encodeEcho(echo, enc, int(offset))
		// The filler puts the echo at rune offset%240 of the page: before, across and
		// after the 200-rune cut.
		body := pad1 + "|" + strings.Repeat("x", int(offset)%240) + echo + "|" + pad2
		if form%8 >= 5 {
			path %= 3 // the query's values are masked in answers to the query
		}
		out := fuzzAnswerTexts(t, c.header, path, sql, body)
		for _, text := range out {
			if p := secretPiece(normalizeEcho(text), secrets); p != "" {
				t.Fatalf("echo %q in body %q:\noutput %q keeps %q", echo, body, text, p)
			}
			if p := pieceIn(normalizeEcho(text), values); p != "" {
				t.Fatalf("query %q, echo %q in body %q:\noutput %q keeps %q", sql, echo, body, text, p)
			}
			if !utf8.ValidString(text) {
				t.Fatalf("output %q is not valid UTF-8", text)
			}
		}
	})
}

// fuzzQuery is a probe query with a sampled value made of v: fuzzValueMark, then
// v's printable characters, white space runs kept (at most 100 bytes).
func fuzzQuery(v string) string {
	v = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, v)
	for len(v) > 100 {
		_, size := utf8.DecodeLastRuneInString(v)
		v = v[:len(v)-size]
	}
	return `SELECT COUNT(*) FROM "people" WHERE "email" IN (` + QuoteString(fuzzValueMark+v) + `, 'x') AND "ts" > ` + fuzzNumber + ` LIMIT 10`
}

// pieceIn returns the first of pieces that text holds.
func pieceIn(text string, pieces []string) string {
	for _, p := range pieces {
		if strings.Contains(text, p) {
			return p
		}
	}
	return ""
}

// secretParts are the pieces of a header no output may keep.
func secretParts(header, password string) []string {
	parts := []string{header}
	if _, cred, ok := strings.Cut(header, " "); ok {
		parts = []string{cred}
	}
	if len(password) >= minSecretRunFuzz {
		parts = append(parts, password)
	}
	return parts
}

// schemeLen is the length of "Basic " at the start of v, 0 without one.
func schemeLen(v string) int {
	for _, s := range []string{"Basic ", "Bearer "} {
		if strings.HasPrefix(v, s) {
			return len(s)
		}
	}
	return 0
}

// echoForm is what the page echoes: the header, its credential alone, the
// decoded user:password, the password alone, a run of 8 or more characters from
// inside the credential or the password (from an offset at picks), the query as
// sent, the query with its white space folded, or the query's value alone.
func echoForm(header, password, sql string, form uint8, at int) string {
	_, cred, ok := strings.Cut(header, " ")
	if !ok {
		cred = header
	}
	switch form % 8 {
	case 1:
		return cred
	case 2:
		if password != "" {
			return "a:" + password
		}
	case 3:
		if password != "" {
			return password
		}
	case 4:
		s := cred
		if password != "" && at%2 == 1 {
			s = password
		}
		from := at % (len(s) - 7)
		return s[from:min(len(s), from+8+at%13)]
	case 5:
		return sql
	case 6:
		return strings.Join(strings.Fields(sql), " ")
	case 7:
		lit := sqltext.Literals(sql)[0] // the value, quoted
		return strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	}
	return header
}

// encodeEcho writes s as a page might: plain, JSON-escaped (\ " / + =), every
// character as \uXXXX, HTML character references, percent-encoded, or wrapped
// by white space (a line break, spaces, an escaped \n) at a position at picks.
func encodeEcho(s string, enc uint8, at int) string {
	var b strings.Builder
	switch enc % 7 {
	case 1:
		for _, r := range s {
			switch r {
			case '\\', '"':
				b.WriteString(`\` + string(r))
			case '/':
				b.WriteString(`\/`)
			case '+':
				b.WriteString(`\u002b`)
			case '=':
				b.WriteString(`\u003D`)
			default:
				b.WriteRune(r)
			}
		}
	case 2:
		for _, u := range utf16.Encode([]rune(s)) { // beyond U+FFFF: a surrogate pair, as JSON writes it
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	case 3:
		for i, r := range s {
			switch {
			case isAlnum(r):
				b.WriteRune(r)
			case i%2 == 0:
				fmt.Fprintf(&b, "&#%d;", r)
			default:
				fmt.Fprintf(&b, "&#x%X;", r)
			}
		}
	case 4:
		for _, r := range s {
			if isAlnum(r) || r >= utf8.RuneSelf {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, "%%%02X", r)
			}
		}
	case 5, 6:
		i := 1 + at%max(len(s)-1, 1)
		for i < len(s) && !utf8.RuneStart(s[i]) { // a page wraps between characters
			i++
		}
		sep := []string{"\n", "\r\n   ", `\n`, " \t "}[at%4]
		if enc%7 == 6 {
			sep = "\n"
		}
		return s[:i] + sep + s[i:]
	default:
		return s
	}
	return b.String()
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// fuzzAnswerTexts sends one request through a client whose transport answers
// body in memory, and returns every text the client made of it.
func fuzzAnswerTexts(t *testing.T, header string, path uint8, sql, body string) []string {
	status, answer := http.StatusBadGateway, body
	switch path % 4 {
	case 1: // a Pinot exception: HTTP 200, the echo in its JSON-escaped message
		msg, _ := json.Marshal(body)
		answer = `{"exceptions":[{"errorCode":200,"message":` + string(msg) + `}],"numServersQueried":1,"numServersResponded":1}`
		status = http.StatusOK
	case 2: // a 200 that is no JSON
		answer, status = "<"+body, http.StatusOK
	}
	hc := &http.Client{Transport: echoTransport{status: status, body: answer}}
	c := New(Options{BrokerURL: "http://127.0.0.1:1", ControllerURL: "http://127.0.0.1:1", HTTPClient: hc, Auth: staticAuth(header)})
	ctx := context.Background()
	if path%4 == 3 { // the httpError path, and the start time's unexpected answer
		_, err1 := c.RoutingTable(ctx, "t")
		_, err2 := c.StartTime(ctx)
		hc.Transport = echoTransport{status: http.StatusOK, body: "<" + body}
		_, err3 := c.StartTime(ctx)
		return []string{fmt.Sprint(err1), fmt.Sprint(err2), fmt.Sprint(err3)}
	}
	return []string{c.Query(ctx, Query{SQL: sql}).Message}
}

// echoTransport answers every request with one status and body, no network.
type echoTransport struct {
	status int
	body   string
}

func (e echoTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: e.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(e.body)),
		ContentLength: int64(len(e.body)), Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// normalizeEcho undoes what a page may do to an echo — JSON \/ \" \\ and \uXXXX,
// \n-style escapes, HTML character references, percent-encoding — and drops
// white space, so a piece is found however it was written. It is the test's own
// decoder, written apart from the redactor's.
func normalizeEcho(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case len(s)-i >= 2 && s[i] == '\\' && strings.ContainsRune(`/"\\`, rune(s[i+1])):
			b.WriteByte(s[i+1])
			i += 2
		case len(s)-i >= 2 && s[i] == '\\' && strings.ContainsRune("nrt", rune(s[i+1])):
			i += 2
		case len(s)-i >= 6 && strings.HasPrefix(s[i:], `\u`):
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				b.WriteRune(rune(v))
				i += 6
				continue
			}
			b.WriteByte(s[i])
			i++
		case strings.HasPrefix(s[i:], "&#"):
			end := strings.IndexByte(s[i:], ';')
			num := ""
			if end > 2 {
				num = s[i+2 : i+end]
			}
			var v uint64
			var err error = strconv.ErrSyntax
			if strings.HasPrefix(num, "x") || strings.HasPrefix(num, "X") {
				v, err = strconv.ParseUint(num[1:], 16, 32)
			} else if num != "" {
				v, err = strconv.ParseUint(num, 10, 32)
			}
			if err == nil {
				b.WriteRune(rune(v))
				i += end + 1
				continue
			}
			b.WriteByte(s[i])
			i++
		case s[i] == '%' && len(s)-i >= 3:
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
			b.WriteByte(s[i])
			i++
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v':
			i++
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// secretPiece returns the first minSecretRunFuzz-byte piece of a secret in text.
func secretPiece(text string, secrets []string) string {
	for _, s := range secrets {
		if p := pieceOf(text, s, minSecretRunFuzz); p != "" {
			return p
		}
	}
	return ""
}
