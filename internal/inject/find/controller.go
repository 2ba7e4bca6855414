package find

import (
	"fmt"
	"sort"
)

// controllerURL picks the Pinot controller Service from the same manifests, for
// WARMUP_CONTROLLER_URL when the values leave it empty. A candidate selects pods labelled
// component=controller with the broker's app label; the broker's own release wins, then a
// plain ClusterIP Service over the headless and external ones the official chart also renders.
// Empty when there is none.
func controllerURL(services []service, broker Broker) string {
	type candidate struct {
		svc   service
		score int
	}
	var cands []candidate
	for _, s := range services {
		sel := s.Spec.Selector
		if sel["component"] != "controller" || len(s.Spec.Ports) == 0 {
			continue
		}
		if app, ok := broker.Labels["app"]; ok && sel["app"] != app {
			continue
		}
		score := 0
		if rel := broker.Labels["release"]; rel != "" && sel["release"] == rel {
			score += 4
		}
		if s.Metadata.Namespace == broker.Namespace {
			score += 2
		}
		if (s.Spec.Type == "" || s.Spec.Type == "ClusterIP") && s.Spec.ClusterIP != "None" {
			score++
		}
		cands = append(cands, candidate{s, score})
	}
	if len(cands) == 0 {
		return ""
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	best := cands[0].svc
	p := best.Spec.Ports[0].Port
	for _, sp := range best.Spec.Ports {
		if sp.Name == "controller" {
			p = sp.Port
		}
	}
	host := best.Metadata.Name
	if best.Metadata.Namespace != "" && best.Metadata.Namespace != broker.Namespace {
		host = fmt.Sprintf("%s.%s.svc", best.Metadata.Name, best.Metadata.Namespace)
	}
	return fmt.Sprintf("http://%s:%d", host, p)
}
