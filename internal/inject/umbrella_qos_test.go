package inject

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// The umbrella chart's pinot-broker-warmup.brokerResources keeps the pod's QoS class, which a
// resize may not change: a Guaranteed broker (CPU 2, memory request equal to its limit) with a
// Guaranteed sidecar may not have its CPU limit boosted alone. Memory equal however written
// (1Gi is 1024Mi) is Guaranteed; unequal is Burstable, and the boost keeps it so.
const qosRefusal = "would change the broker pod's QoS class"

var umbrellaMemoryCases = []struct {
	name                   string
	brokerReq, brokerLim   string // YAML scalars, as an operator writes them
	sidecarReq, sidecarLim string
	refused                bool
}{
	{"1Gi is 1024Mi", "1Gi", "1024Mi", "64Mi", "64Mi", true},
	{"1Gi is 1073741824 bytes", "1Gi", `"1073741824"`, "64Mi", "64Mi", true},
	{"a number of bytes", "1073741824", "1Gi", "64Mi", "64Mi", true},
	{"1G is 1000M", "1G", "1000M", "64Mi", "64Mi", true},
	{"1.5Gi is 1536Mi", "1.5Gi", "1536Mi", "64Mi", "64Mi", true},
	{"0.5Gi is 524288Ki", "0.5Gi", "524288Ki", "64Mi", "64Mi", true},
	{"129e6 is 129M", "129e6", "129M", "64Mi", "64Mi", true},
	{"1k is 1e3", "1k", "1e3", "64Mi", "64Mi", true},
	{"millibytes", "1Gi", "1073741824000m", "64Mi", "64Mi", true},
	{"the sidecar's 64Mi is 65536Ki", "2Gi", "2Gi", "64Mi", "65536Ki", true},
	{"as written", "2Gi", "2Gi", "64Mi", "64Mi", true},
	{"1Gi is not 1G", "1Gi", "1G", "64Mi", "64Mi", false},
	{"1024Mi is not 1025Mi", "1024Mi", "1025Mi", "64Mi", "64Mi", false},
	{"1.5Gi is not 1.5G", "1.5Gi", "1.5G", "64Mi", "64Mi", false},
	{"a Burstable sidecar", "1Gi", "1024Mi", "32Mi", "64Mi", false},
}

func umbrellaMemoryValues(brokerReq, brokerLim, sidecarReq, sidecarLim string) string {
	return fmt.Sprintf(`broker:
  resources:
    requests: {cpu: "2", memory: %s}
    limits: {cpu: "2", memory: %s}
pinot-broker-warmup:
  brokerCpuBoost:
    enabled: true
    cpu: {limit: "4"}
  resources:
    requests: {cpu: 50m, memory: %s}
    limits: {cpu: 50m, memory: %s}
`, brokerReq, brokerLim, sidecarReq, sidecarLim)
}

// umbrellaRender renders the umbrella chart with values (YAML, read as `helm -f` reads it) and
// returns the error's text, "" when it renders.
type umbrellaRender func(t *testing.T, values string) string

func TestUmbrellaQoSComparesMemoryAsQuantities(t *testing.T) {
	library := func(t *testing.T, values string) string {
		v, err := chartutil.ReadValues([]byte(values))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := renderUmbrellaAt(t, v, "v1.34.0"); err != nil {
			return err.Error()
		}
		return ""
	}
	paths := map[string]umbrellaRender{"library": library}
	if helm, err := exec.LookPath("helm"); err == nil {
		dir := t.TempDir()
		copyDir(t, umbrellaDir, dir)
		copyDir(t, chartDir, dir+"/charts/pinot-broker-warmup")
		paths["helm"] = func(t *testing.T, values string) string {
			out, err := exec.Command(helm, "template", "pinot", dir, "--namespace", "pinot", "--kube-version", "1.34.0",
				"--values", writeValues(t, values)).CombinedOutput()
			if err != nil {
				return string(out)
			}
			return ""
		}
	} else {
		t.Log("helm not on PATH: the umbrella chart rendered through Helm's library only")
	}
	for path, render := range paths {
		for _, c := range umbrellaMemoryCases {
			t.Run(path+"/"+c.name, func(t *testing.T) {
				got := render(t, umbrellaMemoryValues(c.brokerReq, c.brokerLim, c.sidecarReq, c.sidecarLim))
				switch {
				case c.refused && !strings.Contains(got, qosRefusal):
					t.Errorf("memory %s / %s, sidecar %s / %s: want refused (%q), got %q", c.brokerReq, c.brokerLim, c.sidecarReq, c.sidecarLim, qosRefusal, got)
				case !c.refused && got != "":
					t.Errorf("memory %s / %s, sidecar %s / %s: want rendered, got %s", c.brokerReq, c.brokerLim, c.sidecarReq, c.sidecarLim, got)
				}
			})
		}
		// A memory quantity the API server would not read is named, not compared.
		t.Run(path+"/unreadable", func(t *testing.T) {
			if got := render(t, umbrellaMemoryValues("1Gi", "1GB", "64Mi", "64Mi")); !strings.Contains(got, `"1GB"`) {
				t.Errorf("memory limit 1GB: want a refusal naming it, got %q", got)
			}
		})
	}
}

// pinot-broker-warmup.bytes, rendered alone: one spelling per amount of bytes.
func TestChartBytesHelper(t *testing.T) {
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	// The chart's named templates and one that includes the helper, without the schema: the
	// values are only the quantities under test.
	var helpers []*chart.File
	for _, f := range c.Templates {
		if strings.HasPrefix(f.Name, "templates/_") {
			helpers = append(helpers, f)
		}
	}
	c.Templates = append(helpers, &chart.File{Name: "templates/bytes-under-test.yaml",
		Data: []byte(`{{ range .Values.quantities }}{{ include "pinot-broker-warmup.bytes" . }}|{{ end }}`)})
	render := func(q any) (string, error) {
		out, err := engine.Render(c, chartutil.Values{"Values": map[string]any{"quantities": []any{q}}})
		return out[c.Name()+"/templates/bytes-under-test.yaml"], err
	}
	for want, spellings := range map[string][]any{
		"1073741824":          {"1Gi", "1024Mi", "1048576Ki", "1073741824", 1073741824.0, "1.073741824e+09", "1073741824000m", "0001Gi"},
		"1000000000":          {"1G", "1000M", "1e9", "1E9", "0.001T", "1000000k", 1e9},
		"1610612736":          {"1.5Gi", "1536Mi", "1.50Gi"},
		"129000000":           {"129e6", "129M", "129000k"},
		"0":                   {"0", "0Gi", "0.0", ".0"},
		"5e-1":                {"500m", "0.5", ".5", "5e-1"},
		"11e-1":               {"1.1", "1100m"},
		"1e-9":                {"1n", "1e-9", "0.001u"},
		"8070450532247928832": {"7Ei"},
	} {
		for _, q := range spellings {
			got, err := render(q)
			if err != nil || got != want+"|" {
				t.Errorf("bytes of %v: got %q (%v), want %s", q, got, err, want)
			}
		}
	}
	for _, q := range []any{"1GB", "-1Gi", "Gi", "1.2.3", "8Ei", "1e99", "1e-99", "1e-9999999999", "1234567890123456789"} {
		if got, err := render(q); err == nil || !strings.Contains(err.Error(), "is not a Kubernetes quantity") {
			t.Errorf("bytes of %v: got %q (%v), want a refusal", q, got, err)
		}
	}
}
