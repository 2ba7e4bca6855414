package fakepinot

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// MultiStage is what the fake broker does with a query that asks for Pinot's
// multi-stage engine (a leading SET useMultistageEngine=true, or the query
// option).
type MultiStage int

const (
	// MultiStageServed is Pinot 1.x's default: the multi-stage engine answers,
	// and its answers carry stageStats.
	MultiStageServed MultiStage = iota
	// MultiStageDisabled is a 1.x broker started with
	// pinot.multistage.engine.enabled=false: HTTP 200 with error 450 (DisabledAnswer).
	MultiStageDisabled
	// MultiStageAbsent is a broker older than the engine: the option means nothing
	// to it and its single-stage engine answers.
	MultiStageAbsent
)

// SetMultiStage sets how the broker answers multi-stage queries.
func (b *Broker) SetMultiStage(m MultiStage) { b.mu.Lock(); b.multiStage = m; b.mu.Unlock() }

// MultiStageDisabledMessage is the exception text of DisabledAnswer:
// QueryErrorCode.INTERNAL's default message, ": ", and the text of
// BrokerRequestHandlerDelegate.handleRequest (pinot-broker, release-1.5.1).
const MultiStageDisabledMessage = "InternalError: V2 Multi-Stage query engine not enabled."

// CodeInternal is Pinot's QueryErrorCode.INTERNAL.
const CodeInternal = 450

// DisabledAnswer is a 1.5.1 broker's answer to a multi-stage query when its
// multi-stage engine is disabled: the delegate returns a BrokerResponseNative
// holding one exception before any engine runs, so every statistic is zero and
// partialResult is true (it is set whenever there are exceptions). HTTP 200, as
// every query error is unless the client asks for HTTP statuses.
func DisabledAnswer() string {
	return errorAnswer(CodeInternal, MultiStageDisabledMessage)
}

// errorAnswer is the body a 1.5.1 broker sends for a query that failed before
// any server was asked, shaped like the recorded
// e2e/testdata/broker-responses/pinot-1.5.1/query-unknown-table.json.
func errorAnswer(code int, msg string) string {
	m, _ := json.Marshal(msg)
	return fmt.Sprintf(`{"numRowsResultSet":0,"partialResult":true,"exceptions":[{"errorCode":%d,"message":%s}],`+
		`"numGroupsLimitReached":false,"numGroupsWarningLimitReached":false,"timeUsedMs":0,"requestId":"1807431300000000099",`+
		`"clientRequestId":null,"brokerId":"Broker_127.0.0.1_8099","numDocsScanned":0,"totalDocs":0,`+
		`"numEntriesScannedInFilter":0,"numEntriesScannedPostFilter":0,"numServersQueried":0,"numServersResponded":0,`+
		`"numSegmentsQueried":0,"numSegmentsProcessed":0,"numSegmentsMatched":0,"brokerReduceTimeMs":0,"traceInfo":{},`+
		`"tablesQueried":[],"pools":[],"rlsFiltersApplied":false,"groupsTrimmed":false}`, code, m)
}

// stageStats is a multi-stage answer's plan statistics, cut down from a recorded
// 1.5.1 answer (query-mse-set.json): only its presence tells the engine apart.
const stageStats = `{"type":"MAILBOX_RECEIVE","executionTimeMs":3,"emittedRows":1,"fanIn":1,"parallelism":1,` +
	`"children":[{"type":"MAILBOX_SEND","executionTimeMs":2,"emittedRows":1,"stage":1,"parallelism":1,` +
	`"children":[{"type":"LEAF","table":"t","executionTimeMs":1,"emittedRows":1,"parallelism":1}]}]}`

// withStageStats adds stageStats to a successful answer, as the multi-stage
// engine's answers have them.
func withStageStats(body string) string {
	i := strings.LastIndex(body, "}")
	if i < 0 {
		return body
	}
	return body[:i] + `,"stageStats":` + stageStats + body[i:]
}

// asksMultiStage: the query runs on the multi-stage engine by its SET statement
// or by the request's queryOptions.
func asksMultiStage(sql, options string) bool {
	if sqltext.MultiStage(sql) {
		return true
	}
	for _, opt := range strings.Split(options, ";") {
		k, v, _ := strings.Cut(opt, "=")
		if strings.EqualFold(strings.TrimSpace(k), sqltext.MultiStageOption) && strings.EqualFold(strings.TrimSpace(v), "true") {
			return true
		}
	}
	return false
}
