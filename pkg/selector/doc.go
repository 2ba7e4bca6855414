// Package selector holds the pure decisions of a warmup: which tables to probe so
// that every server this broker routes to is hit (greedy set cover), which servers
// stay uncovered, the round-robin order of probes, the typed legs of hybrid tables
// and the routable filter for an operator's table list. It does no I/O.
package selector
