package rollout

import (
	"errors"
	"fmt"
)

// CPUNone is a broker CPU request or limit left unset in broker.resources: the official chart
// ships the broker so (requests.memory only), and a starting JVM then takes what its node has
// spare.
const CPUNone = "none"

// ReferenceBrokerCPU is on_boost_300m's broker CPU request and limit: the CPU every study ran its
// brokers at before they ran as the chart ships them.
const ReferenceBrokerCPU = "300m"

// chartCPU is a study's CPU setting as the chart value: "" for none (the field is not set).
func chartCPU(q string) string {
	if q == CPUNone {
		return ""
	}
	return q
}

// brokerCPU is a broker container's CPU request and limit in millicores, 0 for none.
type brokerCPU struct{ request, limit int64 }

// parseBrokerCPU reads a request and a limit, each a Kubernetes quantity or CPUNone, and checks
// them as the API server would take them: each above 0 when set, the limit at or above the request.
func parseBrokerCPU(request, limit string) (brokerCPU, error) {
	req, rerr := milliCPU(chartCPU(request))
	lim, lerr := milliCPU(chartCPU(limit))
	switch {
	case rerr != nil || lerr != nil:
		return brokerCPU{}, fmt.Errorf("broker CPU request %q, limit %q: want Kubernetes CPU quantities (500m, 1) or %s: %w", request, limit, CPUNone, errors.Join(rerr, lerr))
	case request != CPUNone && req <= 0:
		return brokerCPU{}, fmt.Errorf("broker CPU request %s: want > 0, or %s (no request, as the official chart ships the broker)", request, CPUNone)
	case limit != CPUNone && lim <= 0:
		return brokerCPU{}, fmt.Errorf("broker CPU limit %s: want > 0, or %s (no limit, as the official chart ships the broker)", limit, CPUNone)
	case limit != CPUNone && lim < req:
		return brokerCPU{}, fmt.Errorf("broker CPU request %s, limit %s: want a limit ≥ the request, or %s", request, limit, CPUNone)
	}
	return brokerCPU{request: req, limit: lim}, nil
}

// scheduled is the CPU the scheduler counts for the container: its request or, without one, its
// limit (the API server defaults a missing request to the limit).
func (c brokerCPU) scheduled() int64 {
	if c.request == 0 {
		return c.limit
	}
	return c.request
}

// armCPU is the broker CPU arm's pods run at: its own (on_boost_300m) or the study's.
func (c Config) armCPU(arm string) (request, limit string) {
	if spec, err := specOf(arm); err == nil && spec.ownCPU != "" {
		return spec.ownCPU, spec.ownCPU
	}
	return c.BrokerCPURequest, c.BrokerCPULimit
}

// checkArmsCPU: every arm's broker CPU is one the API server takes, and a boost arm's pods have a
// limit below the boost to raise and give back (a resize cannot remove a limit).
func (c Config) checkArmsCPU() error {
	for _, a := range c.Arms {
		req, lim := c.armCPU(a)
		cpu, err := parseBrokerCPU(req, lim)
		if err != nil {
			return err
		}
		spec, _ := specOf(a)
		if !spec.boost {
			continue
		}
		if cpu.limit == 0 {
			return fmt.Errorf("arm %s: its boost raises the broker's CPU limit and gives it back, but the brokers have none (broker CPU limit %s) and a resize cannot remove a limit: run %s (the boost on brokers of its own %s request and limit), or give the brokers a limit",
				a, lim, ArmOnBoost300m, ReferenceBrokerCPU)
		}
		boost, err := milliCPU(c.BoostCPULimit)
		if err != nil {
			return fmt.Errorf("boost CPU limit %q: want a Kubernetes CPU quantity (1, 1500m): %w", c.BoostCPULimit, err)
		}
		if boost <= cpu.limit {
			return fmt.Errorf("boost CPU limit %s: want above %s's broker CPU limit %s (a boost at or below it gives nothing)", c.BoostCPULimit, a, lim)
		}
	}
	return nil
}

// ownCPU is arm's broker CPU as the study records it (Resources: "" for none) where it is not
// the study's; nil where it is.
func (c Config) ownCPU(arm string) *Resources {
	req, lim := c.armCPU(arm)
	if req == c.BrokerCPURequest && lim == c.BrokerCPULimit {
		return nil
	}
	return &Resources{CPURequest: chartCPU(req), CPULimit: chartCPU(lim)}
}
