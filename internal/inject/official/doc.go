// Package official says an injection in the official Pinot chart's own values, for
// `warmup-inject values` (the values route): given a broker StatefulSet before and after the
// injection and its pinot-broker.conf (Edit), it writes the broker values that make the chart
// render the same pod and config (Values), and refuses any change the chart has no value for.
// It compares node trees only: it knows how the broker was found (internal/inject/find), not how
// it was edited, boosted or rendered, and does no I/O.
package official
