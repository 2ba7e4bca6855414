package pinot

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Class is what a probe answer means for warmup.
type Class int

const (
	// Success: HTTP 200, body parses, no exceptions, every queried server responded.
	Success Class = iota
	// Transient: worth counting as a failed probe and going on (410, 427, 305,
	// 425, 429, 5xx, timeouts, refused connections, garbage, partial answers).
	Transient
	// BadQuery: the query itself cannot compile (150, 190, 191, 700, 710), or
	// needs the multi-stage engine the broker has not enabled (450, EngineNotEnabled).
	BadQuery
	// Unauthorized: 401/403 or Pinot's access-denied code 180.
	Unauthorized
)

// String is the class's name, such as "bad_query".
func (c Class) String() string {
	switch c {
	case Success:
		return "success"
	case Transient:
		return "transient"
	case BadQuery:
		return "bad_query"
	case Unauthorized:
		return "unauthorized"
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Result is one classified probe answer.
type Result struct {
	// Class is what the answer means for warmup.
	Class Class
	// HTTPStatus is 0 when no HTTP answer came back.
	HTTPStatus int
	// ErrorCode is the first Pinot errorCode, 0 when none.
	ErrorCode int
	// Message is why it was not a success, in the broker's words where it gave any.
	Message string
	// TimeUsedMs is the broker's own serve time (0 when not reported).
	TimeUsedMs int64
	// ServersQueried and ServersResponded are the answer's numServersQueried
	// and numServersResponded (0 when not reported).
	ServersQueried   int
	ServersResponded int
	// MultiStage is true when the answer came from the multi-stage engine (it
	// carries stageStats); a broker without that engine answers from the other.
	MultiStage bool
}

// Classify turns an HTTP status and body into a Result. Messages about refused
// credentials carry DefaultAuthHint; a Client uses its Options.AuthHint.
func Classify(status int, body []byte) Result { return classify(status, body, "", redactor{}) }

// classify quotes the answer only through red, which masks what the request
// carried: its credential and, for a query, its literals.
func classify(status int, body []byte, authHint string, red redactor) Result {
	r := Result{HTTPStatus: status}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		r.Class = Unauthorized
		r.Message = (&UnauthorizedError{What: "query", Status: status, Hint: authHint}).Error()
		return r
	case status != http.StatusOK:
		r.Class = Transient
		r.Message = fmt.Sprintf("HTTP %d: %s", status, red.snippet(body))
		return r
	}
	// Decoding into a pointer tells a JSON object from "null", which would
	// otherwise decode into a zero BrokerResponse: no exceptions, 0 of 0 servers,
	// a success the broker never sent.
	var br *BrokerResponse
	if err := json.Unmarshal(body, &br); err != nil || br == nil {
		if err == nil {
			err = errors.New("not a JSON object")
		}
		r.Class = Transient
		r.Message = fmt.Sprintf("unparsable broker answer (%v): %s", err, red.snippet(body))
		return r
	}
	r.TimeUsedMs = br.TimeUsedMs
	r.ServersQueried, r.ServersResponded = br.NumServersQueried, br.NumServersResponded
	r.MultiStage = len(br.StageStats) > 0 && string(br.StageStats) != "null"
	if len(br.Exceptions) > 0 {
		e := br.Exceptions[0]
		r.ErrorCode = e.ErrorCode
		r.Message = fmt.Sprintf("error %d: %s", e.ErrorCode, red.snippet([]byte(e.Message)))
		r.Class = classOfCode(e.ErrorCode, e.Message)
		if e.ErrorCode == CodeAccessDenied {
			// Real brokers (0.11 at least) answer a missing or wrong credential with
			// HTTP 200, error 180 and a null message: say plainly what it means.
			r.Message = fmt.Sprintf("error 180: the broker's access control denied the query: no, wrong or insufficient credentials (%s)%s",
				hintOr(authHint), suffix(e.Message, red))
		}
		return r
	}
	if br.NumServersResponded != br.NumServersQueried || br.PartialResult {
		r.Class = Transient
		r.Message = fmt.Sprintf("partial answer: %d of %d servers responded", br.NumServersResponded, br.NumServersQueried)
		return r
	}
	r.Class = Success
	return r
}

// CodeInternal is Pinot's InternalError (QueryErrorCode.INTERNAL): a broker
// started without the multi-stage engine answers every multi-stage query with it.
const CodeInternal = 450

// EngineNotEnabledText is what a 1.5.1 broker without the multi-stage engine says
// beside error 450 (BrokerRequestHandlerDelegate: "V2 Multi-Stage query engine not
// enabled.", recorded in e2e/testdata/broker-responses/pinot-1.5.1).
const EngineNotEnabledText = "Multi-Stage query engine not enabled"

// EngineNotEnabled reports whether r is a broker's answer that its multi-stage
// engine is not enabled: the query cannot run there, now or later.
func EngineNotEnabled(r Result) bool {
	return r.ErrorCode == CodeInternal && strings.Contains(r.Message, EngineNotEnabledText)
}

// QuotaRefused reports whether r is the broker refusing a query over a quota
// (error 429 in the answer, or HTTP 429): a verdict on the rate, not the query.
func QuotaRefused(r Result) bool {
	return r.ErrorCode == CodeTooManyRequests || r.HTTPStatus == 429
}

func classOfCode(code int, msg string) Class {
	if code == CodeInternal && strings.Contains(msg, EngineNotEnabledText) {
		return BadQuery // no engine to run it: a verdict on the query, never on warmth
	}
	switch code {
	case CodeSQLParsing, CodeTableDoesNotExist, CodeTableIsDisabled, CodeQueryValidation, CodeUnknownColumn:
		return BadQuery
	case CodeAccessDenied:
		return Unauthorized
	}
	return Transient
}

// suffix appends the broker's own message, when it gave one.
func suffix(msg string, red redactor) string {
	if msg == "" {
		return ""
	}
	return ": " + red.snippet([]byte(msg))
}
