// Package pinot is the only code that speaks HTTP to Apache Pinot: the broker's
// /health, /debug/routingTable and /query/sql, and the controller's /tables.
// Answers come back typed, and every probe answer is classified (success,
// transient, bad query, unauthorized) as docs/pinot-facts.md describes.
package pinot
