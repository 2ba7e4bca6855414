// Package proxy stands in for kube-proxy in the test bed, for one Service port: the Pinot chart's
// broker Service (pinot-broker, port "broker"). It watches the Service and its EndpointSlices as
// kube-proxy's identity (controlplane.UserProxy, which the bootstrap RBAC binds to
// system:node-proxier) and keeps a real HAProxy's servers (package haproxy) to the endpoints
// kube-proxy would send the Service's traffic to, over HAProxy's runtime API. Pod IPs are the test
// bed's fake ones; each (pod IP, port) is translated to where package podnet serves it on loopback.
//
// Which endpoints get traffic: kube-proxy's rules (k8s.io/kubernetes/pkg/proxy, v1.36), each with
// what this package does.
//
//   - kube-proxy skips a Service without a cluster IP (headless) or of type ExternalName
//     (proxyutil.ShouldSkipService) and has no rules for a Service that does not exist. Here:
//     no server in rotation; the servers in it leave, the Event's Reason saying why.
//   - A Service port is matched to the slices' ports by name and protocol (ServicePortName); a
//     slice port with no name or no number is ignored (EndpointSliceCache.endpointInfoByServicePort).
//     Here: Options.PortName names the Service port; the slice's port of that name and protocol
//     gives each endpoint's port number.
//   - Only slices of kube-proxy's IP family are read (EndpointsChangeTracker: IPv4 here, as the pod
//     network); an endpoint with no address is ignored, and of several only the first is used
//     (EndpointSliceCache.addEndpoints). Same here.
//   - Unset conditions: ready and serving mean true, terminating false (addEndpoints). Same here.
//   - One address:port in two endpoints (an endpoint moving between slices; a replacement pod
//     given its terminating predecessor's IP, as podnet does for a StatefulSet's pod) counts once,
//     a non-terminating one winning (addEndpoints). Same here; slices are read in name order, where
//     kube-proxy's map order leaves a tie between two non-terminating ones undefined.
//   - Traffic goes to the ready endpoints; when the Service has none, to the endpoints that are
//     serving and terminating (CategorizeEndpoints; ProxyTerminatingEndpoints, GA since 1.28).
//     Same here (Select; Reason says which rule chose an endpoint).
//   - kube-proxy applies changes at most once per --iptables-min-sync-period (1 s by default),
//     changes arriving meanwhile together. Here: Options.MinSyncPeriod, 0 by default (each change as
//     the watch delivers it): set it to 1 s to match.
//   - kube-proxy (iptables and nftables modes) sends each new connection to an endpoint chosen at
//     random with equal weights, and an established connection keeps its endpoint (conntrack), also
//     after the endpoint leaves. Not the same here: HAProxy balances each HTTP request (roundrobin, with package haproxy's slowstart if
//     set), and a request in flight to a server that leaves finishes there.
//   - Not modelled (one node, one zone, and the chart's broker Service uses none): topology hints and
//     trafficDistribution, internal and external traffic policy Local, session affinity, NodePorts
//     and load balancer IPs.
//
// For the test bed:
//
//   - Slots. HAProxy's configuration is static, so its servers are declared up front (Backends:
//     slot-0…slot-N-1, in maintenance, at Placeholder). An endpoint takes the first free slot the
//     first time it serves and keeps it for the proxy's lifetime, by its targetRef pod's
//     namespace/name (else its address): a pod that leaves and comes back reuses its server, and
//     haproxy.log's server names map to one pod each. A slot is never given to another pod: HAProxy
//     keeps a keep-alive client's server connection across an address change (haproxy.LB.SetAddr).
//     An endpoint finding no free slot is logged and left out.
//   - Entering is SetAddr while the server is in maintenance, then SetReady: HAProxy's slowstart
//     ramps the server's weight from the moment it enters. Leaving is SetMaint. Within one change,
//     entries come before exits, as kube-proxy replaces a Service's rules in one transaction.
//   - An endpoint podnet does not know (no such pod IP or port) is logged and left out; it still
//     counts as ready for the fallback rule, as kube-proxy would count it.
//   - Every entry and exit is an Event (Events), stamped when HAProxy accepted it; Current is the
//     rotation now.
package proxy
