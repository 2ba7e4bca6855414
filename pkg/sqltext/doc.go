// Package sqltext reads the lexical structure of Pinot SQL without parsing it:
// quoted literals and identifiers, comments and statement separators. Split cuts
// a list of queries at top-level ';' (keeping SET statements with their query);
// Tables lists the tables a query names. It does no I/O.
package sqltext
