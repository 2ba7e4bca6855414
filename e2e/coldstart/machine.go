package coldstart

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine says where a study ran: the figures only compare on the same kind of machine.
type Machine struct {
	CPUs     int    `json:"cpus"`
	CPUModel string `json:"cpu_model,omitempty"`
	MemoryGB int    `json:"memory_gb,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
	GoOS     string `json:"goos"`
	GoArch   string `json:"goarch"`
	Go       string `json:"go"`
	Java     string `json:"java,omitempty"`
	// LoadAvg at the start of the study: anything else running skews every arm.
	LoadAvg string `json:"loadavg,omitempty"`
}

// DescribeMachine reads what it can from /proc; missing files leave fields empty.
func DescribeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoOS: runtime.GOOS, GoArch: runtime.GOARCH, Go: runtime.Version()}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(kb, "kB"))); err == nil {
			m.MemoryGB = (n + 512*1024) / (1024 * 1024)
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// String is one line for READMEs.
func (m Machine) String() string {
	s := m.CPUModel
	if s == "" {
		s = m.GoArch
	}
	out := s + ", " + strconv.Itoa(m.CPUs) + " CPUs"
	if m.MemoryGB > 0 {
		out += ", " + strconv.Itoa(m.MemoryGB) + " GiB"
	}
	if m.Kernel != "" {
		out += ", Linux " + m.Kernel
	}
	if m.Java != "" {
		out += ", " + m.Java
	}
	return out + ", " + m.Go
}

func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
