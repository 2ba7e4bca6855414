package container

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// SecurityContext is a container securityContext, in the fields that have a podman equivalent.
// Decoding refuses any other field, so a field the chart gains fails the run instead of being
// silently left out of it.
type SecurityContext struct {
	RunAsNonRoot             *bool  `json:"runAsNonRoot"`
	RunAsUser                *int64 `json:"runAsUser"`
	RunAsGroup               *int64 `json:"runAsGroup"`
	ReadOnlyRootFilesystem   *bool  `json:"readOnlyRootFilesystem"`
	AllowPrivilegeEscalation *bool  `json:"allowPrivilegeEscalation"`
	Privileged               *bool  `json:"privileged"`
	Capabilities             *struct {
		Add  []string `json:"add"`
		Drop []string `json:"drop"`
	} `json:"capabilities"`
	SeccompProfile *struct {
		Type string `json:"type"`
	} `json:"seccompProfile"`
}

// DefaultSeccompProfile is the profile Kubernetes' RuntimeDefault means under CRI-O and podman
// alike: containers-common's.
const DefaultSeccompProfile = "/usr/share/containers/seccomp.json"

// SecurityFlags turns the rendered securityContext into podman run flags, as the kubelet would
// apply it to a container of an image whose USER is imageUser ("uid:gid").
func SecurityFlags(raw json.RawMessage, imageUser string) ([]string, error) {
	var sc SecurityContext
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			return nil, fmt.Errorf("securityContext %s: %w (no podman equivalent is known here)", raw, err)
		}
	}
	uid, gid, _ := strings.Cut(imageUser, ":")
	if sc.RunAsUser != nil {
		uid = strconv.FormatInt(*sc.RunAsUser, 10)
	}
	if sc.RunAsGroup != nil {
		gid = strconv.FormatInt(*sc.RunAsGroup, 10)
	}
	if sc.RunAsNonRoot != nil && *sc.RunAsNonRoot {
		// The kubelet refuses to start it unless the user is a non-zero number.
		if n, err := strconv.ParseInt(uid, 10, 64); err != nil || n == 0 {
			return nil, fmt.Errorf("runAsNonRoot with user %q (image USER %q): the kubelet would refuse to start it", uid, imageUser)
		}
	}
	user := uid
	if gid != "" {
		user += ":" + gid
	}
	flags := []string{"--user", user}
	if sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem {
		// Kubernetes mounts nothing writable over a read-only root; podman would add tmpfs.
		flags = append(flags, "--read-only", "--read-only-tmpfs=false")
	}
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		flags = append(flags, "--security-opt", "no-new-privileges")
	}
	if sc.Privileged != nil && *sc.Privileged {
		return nil, fmt.Errorf("securityContext.privileged: true is not run here")
	}
	if sc.Capabilities != nil {
		for _, c := range sc.Capabilities.Drop {
			flags = append(flags, "--cap-drop", strings.ToLower(c))
		}
		for _, c := range sc.Capabilities.Add {
			flags = append(flags, "--cap-add", strings.ToLower(c))
		}
	}
	// No seccompProfile is Unconfined in Kubernetes (unless the kubelet runs with SeccompDefault).
	seccomp := "unconfined"
	if sc.SeccompProfile != nil {
		switch sc.SeccompProfile.Type {
		case "RuntimeDefault":
			seccomp = DefaultSeccompProfile
		case "Unconfined":
		default:
			return nil, fmt.Errorf("securityContext.seccompProfile.type %q: expected RuntimeDefault or Unconfined", sc.SeccompProfile.Type)
		}
	}
	return append(flags, "--security-opt", "seccomp="+seccomp), nil
}

// ResourceFlags turns the rendered resources into the cgroup limits the kubelet sets: the memory
// and CPU limits, and CPU shares from the CPU request.
func ResourceFlags(raw json.RawMessage) ([]string, error) {
	var r struct {
		Requests map[string]string `json:"requests"`
		Limits   map[string]string `json:"limits"`
	}
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("resources %s: %w", raw, err)
		}
	}
	var flags []string
	for _, name := range slices.Sorted(maps.Keys(r.Limits)) {
		q := r.Limits[name]
		switch name {
		case "memory":
			b, err := bytesOf(q)
			if err != nil {
				return nil, fmt.Errorf("resources.limits.memory: %w", err)
			}
			flags = append(flags, "--memory", strconv.FormatInt(b, 10))
		case "cpu":
			m, err := milliCPU(q)
			if err != nil {
				return nil, fmt.Errorf("resources.limits.cpu: %w", err)
			}
			flags = append(flags, "--cpus", strconv.FormatFloat(float64(m)/1000, 'f', 3, 64))
		default:
			return nil, fmt.Errorf("resources.limits.%s: not run here (memory and cpu are)", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		q := r.Requests[name]
		switch name {
		case "memory": // scheduling only
		case "cpu":
			m, err := milliCPU(q)
			if err != nil {
				return nil, fmt.Errorf("resources.requests.cpu: %w", err)
			}
			flags = append(flags, "--cpu-shares", strconv.FormatInt(max(m*1024/1000, 2), 10))
		default:
			return nil, fmt.Errorf("resources.requests.%s: not run here (memory and cpu are)", name)
		}
	}
	return flags, nil
}

// bytesOf reads a Kubernetes memory quantity: a number with an optional binary (Ki..Ti) or
// decimal (k..T) suffix.
func bytesOf(q string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}
	mult := int64(1)
	num := q
	for _, u := range units {
		if n, ok := strings.CutSuffix(q, u.suffix); ok {
			num, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: expected a positive whole number with an optional suffix Ki, Mi, Gi, Ti, k, M, G or T", q)
	}
	return n * mult, nil
}

// milliCPU reads a Kubernetes CPU quantity ("50m", "1", "0.5") in thousandths of a CPU.
func milliCPU(q string) (int64, error) {
	if n, ok := strings.CutSuffix(q, "m"); ok {
		m, err := strconv.ParseInt(n, 10, 64)
		if err != nil || m <= 0 {
			return 0, fmt.Errorf("%q: expected a positive whole number of millicores", q)
		}
		return m, nil
	}
	f, err := strconv.ParseFloat(q, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%q: expected a positive number of CPUs or millicores (e.g. 500m)", q)
	}
	return int64(f * 1000), nil
}
