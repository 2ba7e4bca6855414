package pinot

import "encoding/json"

// BrokerResponse holds the fields of Pinot's query answer the sidecar reads.
// Everything else (resultTable rows above all) is skipped by the decoder.
type BrokerResponse struct {
	// Exceptions are the errors of the query; empty on success.
	Exceptions []QueryException `json:"exceptions"`
	// NumServersQueried and NumServersResponded differ when servers did not answer.
	NumServersQueried   int `json:"numServersQueried"`
	NumServersResponded int `json:"numServersResponded"`
	// PartialResult is set when the answer misses data.
	PartialResult bool `json:"partialResult"`
	// TimeUsedMs is the broker's own serve time.
	TimeUsedMs int64 `json:"timeUsedMs"`
	// NumRowsResultSet is the number of rows answered.
	NumRowsResultSet int64 `json:"numRowsResultSet"`
	// StageStats is only in multi-stage answers (Pinot 1.x): it tells which engine ran.
	StageStats json.RawMessage `json:"stageStats"`
}

// QueryException is one entry of the answer's "exceptions".
type QueryException struct {
	// ErrorCode is Pinot's QueryErrorCode, such as 150 for a parse error.
	ErrorCode int `json:"errorCode"`
	// Message is the broker's text; null on some brokers.
	Message string `json:"message"`
}

// Pinot error codes the classifier distinguishes (QueryErrorCode in Pinot).
const (
	CodeSQLParsing          = 150
	CodeAccessDenied        = 180
	CodeTableDoesNotExist   = 190
	CodeTableIsDisabled     = 191
	CodeQueryValidation     = 700
	CodeUnknownColumn       = 710
	CodeBrokerTimeout       = 400
	CodeBrokerRequestSend   = 425
	CodeServerNotResponding = 427
	CodeTooManyRequests     = 429
	CodeBrokerResourceMiss  = 410
	CodeSegmentsUnavailable = 305
)
