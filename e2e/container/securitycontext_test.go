package container

import (
	"slices"
	"strings"
	"testing"
)

func TestSecurityFlags(t *testing.T) {
	for _, tc := range []struct {
		name, sc, imageUser string
		want                []string
		err                 string
	}{
		{"the chart's", `{"runAsNonRoot":true,"runAsUser":65532,"runAsGroup":65532,"readOnlyRootFilesystem":true,
			"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"seccompProfile":{"type":"RuntimeDefault"}}`, "1:1",
			[]string{"--user", "65532:65532", "--read-only", "--read-only-tmpfs=false", "--security-opt", "no-new-privileges",
				"--cap-drop", "all", "--security-opt", "seccomp=" + DefaultSeccompProfile}, ""},
		{"none: the image's user, Unconfined", ``, "65532:65532",
			[]string{"--user", "65532:65532", "--security-opt", "seccomp=unconfined"}, ""},
		{"group only", `{"runAsGroup":7,"capabilities":{"add":["NET_BIND_SERVICE"]}}`, "65532:65532",
			[]string{"--user", "65532:7", "--cap-add", "net_bind_service", "--security-opt", "seccomp=unconfined"}, ""},
		{"runAsNonRoot with a root image", `{"runAsNonRoot":true}`, "0:0", nil, "kubelet would refuse"},
		{"runAsNonRoot with a named user", `{"runAsNonRoot":true}`, "nonroot", nil, "kubelet would refuse"},
		{"a field with no podman equivalent", `{"appArmorProfile":{"type":"RuntimeDefault"}}`, "1:1", nil, `unknown field "appArmorProfile"`},
		{"localhost seccomp", `{"seccompProfile":{"type":"Localhost"}}`, "1:1", nil, `"Localhost": expected RuntimeDefault or Unconfined`},
		{"privileged", `{"privileged":true}`, "1:1", nil, "privileged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SecurityFlags([]byte(tc.sc), tc.imageUser)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %q %v, want %q", got, err, tc.want)
			}
		})
	}
}

func TestResourceFlags(t *testing.T) {
	got, err := ResourceFlags([]byte(`{"requests":{"cpu":"50m","memory":"32Mi"},"limits":{"memory":"128Mi","cpu":"0.5"}}`))
	want := []string{"--cpus", "0.500", "--memory", "134217728", "--cpu-shares", "51"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %q %v, want %q", got, err, want)
	}
	for raw, msg := range map[string]string{
		`{"limits":{"memory":"lots"}}`:           `resources.limits.memory: "lots"`,
		`{"limits":{"cpu":"-1"}}`:                `resources.limits.cpu: "-1"`,
		`{"limits":{"ephemeral-storage":"1Gi"}}`: "resources.limits.ephemeral-storage: not run here",
		`{"claims":[]}`:                          `unknown field "claims"`,
	} {
		if _, err := ResourceFlags([]byte(raw)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: err %v, want one containing %q", raw, err, msg)
		}
	}
}
