package rollout

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/warmup-sidecar/warmup-sidecar/charts"
)

// sidecarKey is the warmup.<key> value the sidecar chart sets one WARMUP_* variable from: the key,
// its schema type and, for a list, the separator the template joins it with.
type sidecarKey struct {
	key, typ, sep string
}

// envLine is one variable of the template: "- name: WARMUP_X" then its "value: {{ ... }}".
var envLine = regexp.MustCompile(`(?m)^- name: (WARMUP_[A-Z_]+)\s*\n\s*value: \{\{ ([^}]*)\}\}`)

// plainRef is a value that is a warmup value as it is ("int" only types it for the env).
var plainRef = regexp.MustCompile(`^(?:int )?\.warmup\.([A-Za-z]+) \| quote\s*$`)

// withRef is the "{{- with .warmup.key }}" an optional variable sits in; its value is then "." as
// it is, or joined from a list.
var withRef = regexp.MustCompile(`\{\{- with \.warmup\.([A-Za-z]+) \}\}\s*$`)

var withValue = regexp.MustCompile(`^(?:join "(.)" )?\. \| quote\s*$`)

// sidecarKeys maps each WARMUP_* variable the sidecar chart sets from a warmup value as it is to
// that value's key. Read from the chart itself (templates/_container.tpl, values.schema.json), so
// a sidecar setting given as a variable (--sidecar-env WARMUP_BUDGET=40s) becomes the chart value
// an operator would set.
func sidecarKeys() (map[string]sidecarKey, error) {
	tpl, err := fs.ReadFile(charts.PinotBrokerWarmup, charts.PinotBrokerWarmupDir+"/templates/_container.tpl")
	if err != nil {
		return nil, fmt.Errorf("sidecar chart template: %w", err)
	}
	raw, err := fs.ReadFile(charts.PinotBrokerWarmup, charts.PinotBrokerWarmupDir+"/values.schema.json")
	if err != nil {
		return nil, fmt.Errorf("sidecar chart schema: %w", err)
	}
	var schema struct {
		Properties struct {
			Warmup struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"warmup"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("sidecar chart schema: %w", err)
	}
	text := string(tpl)
	out := map[string]sidecarKey{}
	for _, m := range envLine.FindAllStringSubmatchIndex(text, -1) {
		name, expr := text[m[2]:m[3]], text[m[4]:m[5]]
		var k sidecarKey
		if r := plainRef.FindStringSubmatch(expr); r != nil {
			k.key = r[1]
		} else if w, v := withRef.FindStringSubmatch(text[:m[0]]), withValue.FindStringSubmatch(expr); w != nil && v != nil {
			k.key, k.sep = w[1], v[1]
		} else {
			continue // not a warmup value as it is (the listen address's ":port", the auth file's path...)
		}
		k.typ = schema.Properties.Warmup.Properties[k.key].Type
		out[name] = k
	}
	return out, nil
}

// sidecarValues turns WARMUP_* variables into the sidecar chart's warmup values, typed as its
// schema says; a variable the chart does not set from a warmup value, or a value of the wrong
// type, is an error naming it.
func sidecarValues(env map[string]string) (map[string]any, error) {
	keys, err := sidecarKeys()
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		v := env[name]
		k, ok := keys[name]
		if !ok {
			return nil, fmt.Errorf("sidecar env %s: not a setting the sidecar chart takes from its warmup values (it takes %s)", name, strings.Join(slices.Sorted(maps.Keys(keys)), ", "))
		}
		var val any
		switch k.typ {
		case "boolean":
			val, err = strconv.ParseBool(v)
		case "integer":
			val, err = strconv.Atoi(v)
		case "number":
			val, err = strconv.ParseFloat(v, 64)
		case "array":
			val = strings.Split(v, k.sep)
		default: // string, or an enum of strings
			val = v
		}
		if err != nil {
			return nil, fmt.Errorf("sidecar env %s=%q: warmup.%s wants a value of type %s: %w", name, v, k.key, k.typ, err)
		}
		out[k.key] = val
	}
	return out, nil
}

// chartValues are the sidecar chart's default values the study reads.
type chartValues struct {
	Resources struct {
		Requests struct {
			CPU string `json:"cpu"`
		} `json:"requests"`
	} `json:"resources"`
	BrokerCPUBoost struct {
		Settle string `json:"settle"`
	} `json:"brokerCpuBoost"`
	BrokerReadiness struct {
		DecidedBy string `json:"decidedBy"`
	} `json:"brokerReadiness"`
}

func readChartValues() (chartValues, error) {
	var v chartValues
	raw, err := fs.ReadFile(charts.PinotBrokerWarmup, charts.PinotBrokerWarmupDir+"/values.yaml")
	if err != nil {
		return v, fmt.Errorf("sidecar chart values: %w", err)
	}
	if err := yaml.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("sidecar chart values: %w", err)
	}
	return v, nil
}

// sidecarCPURequest is the sidecar container's CPU request in the sidecar chart's values
// (resources.requests.cpu): what each ON pod asks of the node beside its broker.
func sidecarCPURequest() (int64, error) {
	v, err := readChartValues()
	if err != nil {
		return 0, err
	}
	m, err := milliCPU(v.Resources.Requests.CPU)
	if err != nil {
		return 0, fmt.Errorf("sidecar chart values: resources.requests.cpu %q: %w", v.Resources.Requests.CPU, err)
	}
	return m, nil
}

// chartBoostSettle is the sidecar chart's brokerCpuBoost.settle: on_boost's, which the bed
// leaves at the chart's default.
func chartBoostSettle() (string, error) {
	v, err := readChartValues()
	if err != nil {
		return "", err
	}
	if v.BrokerCPUBoost.Settle == "" {
		return "", fmt.Errorf("sidecar chart values: brokerCpuBoost.settle is empty, want a duration")
	}
	return v.BrokerCPUBoost.Settle, nil
}
