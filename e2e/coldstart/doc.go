// Package coldstart measures what a Pinot broker's first seconds of traffic look like.
//
// It reproduces upstream's cold-start method: an open-loop load at a fixed arrival
// rate (a step, no ramp) that starts at the instant the pod would turn Ready, a client
// that gives up after a fixed timeout (2 s: a round trip beyond it is a cancellation),
// a cold window right after Ready and a later warm window of the same load. Each query
// is recorded (scheduled offset, latency, outcome, the broker's timeUsedMs); windows
// are summarised (cancellation rate, p50/p99, mean timeUsedMs, peak in-flight) and a
// study of several arms × restarts is written as JSON, a Markdown table and a PNG plot.
//
// Nothing here knows how the broker was restarted or what made it Ready: that is the
// caller's (e2e/cmd/coldstart-bench run, or e2e/bench for the local cluster).
package coldstart
