package boost

// Rendered is what the chart renders for one broker's boost, read from its
// pinot-broker-warmup.injection output: the broker container's boosted CPU, the pod's
// ServiceAccount, and the objects beside the pod (a YAML stream). Zero when the boost is off.
type Rendered struct {
	CPU            CPU
	ServiceAccount string
	NoAutomount    bool
	Objects        string
}

// CPU is the chart's pinot-broker-warmup.cpuBoost output: the broker container's CPU while
// boosted, and what the sidecar gives it back to.
type CPU struct {
	Request, Limit                 string
	GiveBackRequest, GiveBackLimit string
}
