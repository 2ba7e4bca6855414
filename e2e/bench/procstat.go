package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc CPU times: 100 on every Linux Go supports.
const clockTicks = 100

// CPUSeconds is the user+system CPU time pid has used (all its threads), from /proc/<pid>/stat.
// pid 0 means this process.
func CPUSeconds(pid int) (float64, error) {
	path := "/proc/self/stat"
	if pid > 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/stat"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("cpu time: %w", err)
	}
	_, secs, err := parseStat(string(b))
	if err != nil {
		return 0, fmt.Errorf("cpu time: %s: %w", path, err)
	}
	return secs, nil
}

// parseStat reads a /proc stat line: the command (or thread) name and its user+system
// CPU seconds.
func parseStat(s string) (name string, secs float64, err error) {
	// The name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("unparsable stat line")
	}
	f := strings.Fields(s[end+1:])
	// After ')': state is field 3, so utime (14) and stime (15) are at 11 and 12.
	if len(f) < 13 {
		return "", 0, fmt.Errorf("too few fields")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, fmt.Errorf("bad utime/stime %q %q", f[11], f[12])
	}
	return s[open+1 : end], float64(ut+st) / clockTicks, nil
}

// MachineCPU is the machine's busy and total CPU seconds since boot, over all cores (/proc/stat).
func MachineCPU() (busy, total float64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, fmt.Errorf("machine cpu: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("machine cpu: unexpected /proc/stat line %q", line)
	}
	var idle float64
	for i, v := range f[1:] {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("machine cpu: %q: %w", v, err)
		}
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return (total - idle) / clockTicks, total / clockTicks, nil
}
