// Package cpuboost gives the broker container's start-up CPU back on evidence. The pod is
// created boosted (the chart renders the broker's CPU raised, brokerCpuBoost); the sidecar
// resizes its own pod's broker container back to its configured CPU, in place, through the
// API server's pods/<name>/resize, once the gate is open and the broker JVM's JIT compiler is
// quiet (or, without a JIT signal, once the gate has been open a settle time), or when the
// maximum boost time since the pod started has passed, whichever comes first.
//
// It runs beside the warmup and never holds the gate. Its states: off, boosted, giving_back
// (the resize sent or waiting on the kubelet), given_back and failed, each in /status, a
// metric and a log line. failed is not an end: no permission, an API server that does not
// answer, a resize refused or infeasible, a pod the target does not fit, each is reported
// failed and tried again at a slow pace (Settings.SlowRetry, one call each time) for as long
// as the pod is boosted, so that a cure (a Role fixed, an API server back) ends given back.
// A broker restart after the give-back does not boost again (docs/design.md, "CPU boost").
package cpuboost
