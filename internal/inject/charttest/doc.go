// Package charttest renders the pinot-broker-warmup chart as it is on disk with Helm's library,
// for the tests that hold warmup-inject's rules equal to the chart's. Tests only: no product code
// imports it.
package charttest
