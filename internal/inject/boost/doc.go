// Package boost is brokerCpuBoost in warmup-inject: it checks the boost against each broker
// StatefulSet and plans the values the chart renders it with (the CPU to give back to, the
// ServiceAccount that holds the resize right, what that ServiceAccount carries over), raises the
// broker container's CPU in the pod with a resize policy that needs no restart (Splice), and adds
// the objects the chart renders beside the pod (ServiceAccount, Role, RoleBinding, admission
// policy) to the stream, replacing only its own (AddObjects). It takes the broker as found
// (internal/inject/find) and what the chart rendered for it (Rendered); it knows nothing of the
// sidecar's containers and probes (internal/inject/edit) nor of Helm, and does no I/O.
package boost
