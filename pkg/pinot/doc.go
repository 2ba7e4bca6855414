// Package pinot is the only code that speaks HTTP to Apache Pinot: the broker's
// /health, /debug/routingTable and /query/sql (probes, and sample rows on a
// path of their own), and the controller's /tables and /tables/{t}/schema.
// Answers come back typed, and every probe answer is classified (success,
// transient, bad query, unauthorized) as docs/pinot-facts.md describes.
package pinot
