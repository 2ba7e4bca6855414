// Package render renders the pinot-broker-warmup chart embedded in warmup-inject with Helm's own
// library: it reads the --values files as `helm -f` does (ReadValues), lays them over the
// chart's defaults and checks them against its schema (New, NewWith), and renders the chart's
// pinot-broker-warmup.injection output for one broker pod (Render). It is the only room that
// links Helm. What the output says to add, and to which broker, is the other rooms' to read and
// do: it knows no manifest, no broker and no room.
package render
