// Package chartvalues looks up and merges the chart's values as Helm decodes them: nested
// map[string]any, from --values files or coalesced over the chart's defaults. Every room that
// reads a value goes through Lookup; it knows no value's meaning and no room.
package chartvalues
