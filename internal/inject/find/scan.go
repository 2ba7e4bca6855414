package find

import "fmt"

// Found is what a stream holds for the injection: its broker StatefulSets, in stream order, the
// ConfigMaps a broker's config may live in, and the Services a controller URL is picked from.
type Found struct {
	Brokers    []Broker
	ConfigMaps map[string]int // namespace/name -> index in the stream
	services   []service
}

// Brokers reads the parsed stream for the broker StatefulSets (by the pod labels podLabels, with
// the broker's container containerName, or as the official chart's broker), the ConfigMaps and
// the Services. With urlGiven (warmup.brokerUrl set) a broker's query port may stay unknown. A
// stream without a broker is an error (noBrokerErr).
func Brokers(docs []Manifest, podLabels map[string]string, containerName string, urlGiven bool) (Found, error) {
	f := Found{ConfigMaps: map[string]int{}}
	for i, d := range docs {
		if d.Node == nil {
			continue
		}
		switch d.Obj.Kind {
		case "Service":
			var s service
			if err := d.Node.Decode(&s); err != nil {
				return Found{}, fmt.Errorf("reading Service %s (line %d): %w", d.Obj.Metadata.Name, d.Line, err)
			}
			f.services = append(f.services, s)
		case "ConfigMap":
			f.ConfigMaps[d.Obj.Metadata.Namespace+"/"+d.Obj.Metadata.Name] = i
		case "StatefulSet":
			var sts statefulSet
			if err := d.Node.Decode(&sts); err != nil {
				return Found{}, fmt.Errorf("reading StatefulSet %s (line %d): %w", d.Obj.Metadata.Name, d.Line, err)
			}
			match, container := matchBroker(d.Obj, sts, podLabels, containerName)
			if match == notBroker {
				continue
			}
			t, err := newBrokerTarget(i, sts, match, container, urlGiven)
			if err != nil {
				return Found{}, err
			}
			f.Brokers = append(f.Brokers, t)
		}
	}
	if len(f.Brokers) == 0 {
		return Found{}, noBrokerErr(podLabels)
	}
	return f, nil
}

// ControllerURL is the Pinot controller's URL for broker b, from the stream's Services
// (controllerURL); empty when none fits.
func (f Found) ControllerURL(b Broker) string { return controllerURL(f.services, b) }
