package pinot

// BrokerResponse holds the fields of Pinot's query answer the sidecar reads.
// Everything else (resultTable rows above all) is skipped by the decoder.
type BrokerResponse struct {
	Exceptions          []QueryException `json:"exceptions"`
	NumServersQueried   int              `json:"numServersQueried"`
	NumServersResponded int              `json:"numServersResponded"`
	PartialResult       bool             `json:"partialResult"`
	TimeUsedMs          int64            `json:"timeUsedMs"`
	NumRowsResultSet    int64            `json:"numRowsResultSet"`
}

// QueryException is one entry of the answer's "exceptions".
type QueryException struct {
	ErrorCode int    `json:"errorCode"`
	Message   string `json:"message"`
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
