// Package edit makes the sidecar's edits to a broker StatefulSet that warmup-inject found
// (internal/inject/find): the rendered containers and volumes spliced into the pod (SplicePod),
// the broker container's JVM options (AddJavaOpts) and AOT cache mounts, the loopback listener in
// its config ConfigMap (AddListener), its readiness and startup probes when the sidecar decides
// readiness (BrokerDecidedBy, GateBrokerProbes), and the sidecar's CPU request beside the broker's
// (SidecarCPUOverride). Each edit keeps the rest of the document as it was and a second run
// changes nothing. It knows nothing of brokerCpuBoost's objects (internal/inject/boost: whether
// the boost is on is told to it) nor of how the chart is rendered (Helm), and does no I/O.
package edit
