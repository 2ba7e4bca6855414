package pinot

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// errorBody is Pinot's error answer: HTTP 200 with exceptions.
func errorBody(code int, msg string) string {
	return fakepinot.Error(code, "QueryException", msg)
}

func TestClassify(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		class   Class
		code    int
		message string // exact when set
	}{
		{name: "success", status: 200, body: fakepinot.OK(2), class: Success},
		{name: "success without servers (a literal query)", status: 200, body: fakepinot.OK(0), class: Success},

		{name: "150 SQL parse error", status: 200, body: errorBody(150, "SQLParsingError:\norg.apache.calcite..."), class: BadQuery, code: 150},
		{name: "190 table does not exist", status: 200, body: errorBody(190, "Unknown table: nope"), class: BadQuery, code: 190},
		{name: "191 table disabled", status: 200, body: errorBody(191, "Table is disabled"), class: BadQuery, code: 191},
		{name: "700 query validation", status: 200, body: errorBody(700, "bad"), class: BadQuery, code: 700},
		{name: "710 unknown column", status: 200, body: errorBody(710, "Unknown columnName 'x'"), class: BadQuery, code: 710},

		{name: "180 access denied", status: 200, body: errorBody(180, "Permission denied"), class: Unauthorized, code: 180},

		{name: "410 no routing yet", status: 200, body: errorBody(410, "BrokerResourceMissingError"), class: Transient, code: 410},
		{name: "427 server not responding", status: 200, body: errorBody(427, "1 servers not responded"), class: Transient, code: 427},
		{name: "305 segments unavailable", status: 200, body: errorBody(305, "1 segments unavailable"), class: Transient, code: 305},
		{name: "425 broker could not send", status: 200, body: errorBody(425, "Failed to send"), class: Transient, code: 425},
		{name: "429 quota exceeded", status: 200, body: errorBody(429, "Request 1 exceeds query quota"), class: Transient, code: 429},
		{name: "400 broker timeout", status: 200, body: errorBody(400, "BrokerTimeoutError"), class: Transient, code: 400},
		{name: "250 server execution timeout", status: 200, body: errorBody(250, "ExecutionTimeoutError"), class: Transient, code: 250},
		{name: "an unknown code is transient", status: 200, body: errorBody(999, "new"), class: Transient, code: 999},
		{
			name:   "the first exception decides",
			status: 200, class: BadQuery, code: 190,
			body: `{"exceptions":[{"errorCode":190,"message":"Unknown table"},{"errorCode":427,"message":"x"}],"numServersQueried":0,"numServersResponded":0}`,
		},
		{
			name:    "exception message is collapsed to one line",
			status:  200,
			body:    errorBody(150, "SQLParsingError:\n\tat org.apache.pinot.Foo\n\tat org.apache.pinot.Bar"),
			class:   BadQuery,
			code:    150,
			message: "error 150: QueryException: SQLParsingError: at org.apache.pinot.Foo at org.apache.pinot.Bar",
		},

		{name: "partial: fewer servers responded", status: 200, body: fakepinot.Partial(3, 2), class: Transient, message: "partial answer: 2 of 3 servers responded"},
		{
			name:   "partialResult true",
			status: 200, class: Transient,
			body: `{"exceptions":[],"partialResult":true,"numServersQueried":2,"numServersResponded":2}`,
		},

		{name: "401", status: 401, body: `{"code":401,"error":"HTTP 401 Unauthorized"}`, class: Unauthorized},
		{name: "403", status: 403, body: `{"code":403,"error":"Permission denied"}`, class: Unauthorized},
		{name: "500 text", status: 500, body: "Payload is missing the query string field 'sql'", class: Transient, message: "HTTP 500: Payload is missing the query string field 'sql'"},
		{
			name:    "502 HTML page is collapsed to one line",
			status:  502,
			body:    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n",
			class:   Transient,
			message: "HTTP 502: <html> <head><title>502 Bad Gateway</title></head> <body> <center><h1>502 Bad Gateway</h1></center> </body> </html>",
		},
		{name: "503 empty body", status: 503, body: "", class: Transient, message: "HTTP 503: (empty body)"},
		{name: "truncated JSON", status: 200, body: fakepinot.OK(1)[:60], class: Transient},
		{name: "empty body with 200", status: 200, body: "", class: Transient},
		{name: "JSON null with 200", status: 200, body: "null", class: Transient},
		{name: "a JSON array with 200", status: 200, body: "[]", class: Transient},
		{name: "no HTTP answer", status: 0, body: "", class: Transient},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Classify(tc.status, []byte(tc.body))
			if r.Class != tc.class {
				t.Errorf("class = %v, want %v (message %q)", r.Class, tc.class, r.Message)
			}
			if r.ErrorCode != tc.code {
				t.Errorf("error code = %d, want %d", r.ErrorCode, tc.code)
			}
			if r.HTTPStatus != tc.status {
				t.Errorf("HTTP status = %d, want %d", r.HTTPStatus, tc.status)
			}
			if tc.message != "" && r.Message != tc.message {
				t.Errorf("message\n got %q\nwant %q", r.Message, tc.message)
			}
			if tc.class == Success && r.Message != "" {
				t.Errorf("success with a message %q", r.Message)
			}
			if tc.class != Success && r.Message == "" {
				t.Error("failure without a message")
			}
			checkOneLine(t, r.Message)
		})
	}
}

func TestClassifyReadsServerCountsAndTime(t *testing.T) {
	r := Classify(200, []byte(fakepinot.OK(3)))
	if r.ServersQueried != 3 || r.ServersResponded != 3 || r.TimeUsedMs != 3 {
		t.Errorf("got %+v, want 3 of 3 servers in 3 ms", r)
	}
}

func TestClassifyCutsLongBodies(t *testing.T) {
	cases := []struct {
		name string
		body string
	}{
		{"ASCII", strings.Repeat("x", 10000)},
		{"multi-byte runes across the cut", "x" + strings.Repeat("é", 5000)},
		{"a long HTML page", "<html>\n" + strings.Repeat("<p>Service   Unavailable</p>\n", 500) + "</html>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Classify(503, []byte(tc.body))
			if r.Class != Transient {
				t.Errorf("class = %v", r.Class)
			}
			if n := utf8.RuneCountInString(r.Message); n > 220 {
				t.Errorf("message is %d runes long: %q", n, r.Message)
			}
			if !strings.HasSuffix(r.Message, "…") {
				t.Errorf("a cut message does not say so: %q", r.Message)
			}
			checkOneLine(t, r.Message)
		})
	}
}

func checkOneLine(t *testing.T, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\r\n") {
		t.Errorf("message is not one line: %q", s)
	}
	if !utf8.ValidString(s) {
		t.Errorf("message is not valid UTF-8: %q", s)
	}
}

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{Success: "success", Transient: "transient", BadQuery: "bad_query", Unauthorized: "unauthorized", Class(9): "class(9)"} {
		if got := c.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(c), got, want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	seeds := []struct {
		status int
		body   string
	}{
		{200, fakepinot.OK(1)},
		{200, fakepinot.OK(0)},
		{200, fakepinot.Partial(2, 1)},
		{200, errorBody(150, "SQLParsingError:\nline 1")},
		{200, errorBody(180, "denied")},
		{200, errorBody(427, "not responded")},
		{200, `{"exceptions":[],"partialResult":true,"numServersQueried":1,"numServersResponded":1}`},
		{200, `{"exceptions":null}`},
		{200, `{}`},
		{200, `null`},
		{200, ``},
		{200, `{"exceptions":[{"errorCode":"x"}]}`},
		{401, `{"code":401,"error":"HTTP 401 Unauthorized"}`},
		{403, ``},
		{500, "Payload is missing the query string field 'sql'"},
		{502, "<html>\r\n<body>Bad Gateway</body>\r\n</html>"},
		{0, "\xff\xfe"},
		{-1, strings.Repeat("é", 300)},
	}
	for _, s := range seeds {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		r := Classify(status, body)
		if r.HTTPStatus != status {
			t.Fatalf("HTTPStatus = %d, want %d", r.HTTPStatus, status)
		}
		if strings.ContainsAny(r.Message, "\r\n") || !utf8.ValidString(r.Message) {
			t.Fatalf("message not one valid line: %q", r.Message)
		}
		if r.Class != Success {
			if r.Message == "" {
				t.Fatalf("%v without a message", r.Class)
			}
			return
		}
		if status != 200 {
			t.Fatalf("success with HTTP %d", status)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil || m == nil {
			t.Fatalf("success for a body that is not a JSON object: %q (%v)", body, err)
		}
		var br BrokerResponse
		if err := json.Unmarshal(body, &br); err != nil {
			t.Fatalf("success for a body that does not decode: %v", err)
		}
		if len(br.Exceptions) != 0 || br.PartialResult || br.NumServersQueried != br.NumServersResponded {
			t.Fatalf("success for %s", fmt.Sprintf("%+v", br))
		}
	})
}

// A real 0.11 broker answers a query without credentials with HTTP 200, error 180
// and "message": null (e2e/testdata/broker-responses/pinot-0.11.0/auth-query-no-credentials.json).
func TestClassifyRealAccessDeniedSaysWhatToDo(t *testing.T) {
	body, err := os.ReadFile("../../e2e/testdata/broker-responses/pinot-0.11.0/auth-query-no-credentials.json")
	if err != nil {
		t.Fatal(err)
	}
	r := Classify(200, body)
	if r.Class != Unauthorized || r.ErrorCode != 180 || !strings.Contains(r.Message, "credentials ("+DefaultAuthHint+")") {
		t.Fatalf("got %+v", r)
	}
}

// The 1.5.1 broker's multi-stage answers carry stageStats; its single-stage answers and 0.11's do not.
func TestClassifyTellsTheEngineFromRealAnswers(t *testing.T) {
	for file, want := range map[string]bool{
		"pinot-1.5.1/query-mse-option.json": true,
		"pinot-1.5.1/query-mse-set.json":    true,
		"pinot-1.5.1/query-mse-join.json":   true,
		"pinot-1.5.1/query-count.json":      false,
		"pinot-1.5.1/query-no-from.json":    false,
		"pinot-0.11.0/query-count.json":     false,
	} {
		body, err := os.ReadFile("../../e2e/testdata/broker-responses/" + file)
		if err != nil {
			t.Fatal(err)
		}
		r := Classify(200, body)
		if r.Class != Success || r.MultiStage != want {
			t.Errorf("%s: class %s, MultiStage %v; want success, %v", file, r.Class, r.MultiStage, want)
		}
	}
}

// A 1.5.1 broker without the multi-stage engine answers every multi-stage query,
// by SET or by option, with HTTP 200 and error 450: no engine will ever run it,
// so it is a verdict on the query (BadQuery), never a transient failure. Any
// other InternalError stays transient.
func TestClassifyEngineNotEnabledFromRealAnswers(t *testing.T) {
	for _, file := range []string{"query-mse-disabled-select1.json", "query-mse-disabled-set.json", "query-mse-disabled-option.json"} {
		body, err := os.ReadFile("../../e2e/testdata/broker-responses/pinot-1.5.1/" + file)
		if err != nil {
			t.Fatal(err)
		}
		r := Classify(200, body)
		if r.Class != BadQuery || r.ErrorCode != CodeInternal || !EngineNotEnabled(r) || r.MultiStage {
			t.Errorf("%s: %+v, want a bad query saying the engine is not enabled", file, r)
		}
	}
	other := Classify(200, []byte(`{"exceptions":[{"errorCode":450,"message":"InternalError: Interrupted while planning query"}]}`))
	if other.Class != Transient || EngineNotEnabled(other) {
		t.Errorf("another InternalError: %+v, want transient", other)
	}
}
