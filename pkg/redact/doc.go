// Package redact masks known secrets in text bound for a log line, /status or an
// error: a credential an answer echoed (the Authorization header a request
// carried, a ServiceAccount token), or the values a query carried. A secret is
// found written plainly or escaped (JSON, HTML character references,
// percent-encoding), with white space anywhere in it (a wrapped page, a folded
// line); for a credential, so is any long enough piece of it: its start (an echo
// cut short) or any run from its middle or tail (a proxy that shows the end).
// It runs on error text only, never on a path that succeeds. It does no I/O.
package redact
