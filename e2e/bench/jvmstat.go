package bench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// JVM counters come from the HotSpot perf-data file (/tmp/hsperfdata_<user>/<pid>), the
// memory-mapped file jstat reads. Reading it is a file read: no attach, no extra JVM started
// beside a broker whose cold seconds are being measured (jstat itself is a JVM and would
// take a core's worth of CPU for half a second).

// JVMCounters is one reading of a JVM's compilation, GC and safepoint counters.
type JVMCounters struct {
	Compiles       int64   // sun.ci.totalCompiles (jstat -compiler "Compiled")
	CompileSeconds float64 // java.ci.totalTime
	GCPauses       int64   // sum of sun.gc.collector.N.invocations
	GCSeconds      float64 // sum of sun.gc.collector.N.time (jstat GCT)
	SafepointSecs  float64 // sun.rt.safepointTime
}

// Sub is the change from an earlier reading.
func (c JVMCounters) Sub(earlier JVMCounters) JVMCounters {
	return JVMCounters{
		Compiles:       c.Compiles - earlier.Compiles,
		CompileSeconds: c.CompileSeconds - earlier.CompileSeconds,
		GCPauses:       c.GCPauses - earlier.GCPauses,
		GCSeconds:      c.GCSeconds - earlier.GCSeconds,
		SafepointSecs:  c.SafepointSecs - earlier.SafepointSecs,
	}
}

// ReadJVMCounters reads pid's perf-data file.
func ReadJVMCounters(pid int) (JVMCounters, error) {
	path := filepath.Join(os.TempDir(), "hsperfdata_"+currentUser(), strconv.Itoa(pid))
	b, err := os.ReadFile(path)
	if err != nil {
		return JVMCounters{}, fmt.Errorf("jvm counters of pid %d: %w", pid, err)
	}
	longs, err := parsePerfData(b)
	if err != nil {
		return JVMCounters{}, fmt.Errorf("jvm counters of pid %d (%s): %w", pid, path, err)
	}
	freq := float64(longs["sun.os.hrt.frequency"])
	if freq <= 0 {
		return JVMCounters{}, fmt.Errorf("jvm counters of pid %d: no sun.os.hrt.frequency", pid)
	}
	c := JVMCounters{
		Compiles:       longs["sun.ci.totalCompiles"],
		CompileSeconds: float64(longs["java.ci.totalTime"]) / freq,
		SafepointSecs:  float64(longs["sun.rt.safepointTime"]) / freq,
	}
	for name, v := range longs {
		if !strings.HasPrefix(name, "sun.gc.collector.") {
			continue
		}
		switch {
		case strings.HasSuffix(name, ".invocations"):
			c.GCPauses += v
		case strings.HasSuffix(name, ".time"):
			c.GCSeconds += float64(v) / freq
		}
	}
	return c, nil
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if os.Getuid() == 0 {
		return "root"
	}
	return strconv.Itoa(os.Getuid())
}

const perfMagic = 0xcafec0c0

// parsePerfData returns the scalar long ('J') entries of a perf-data buffer. The layout is
// HotSpot's PerfDataPrologue (32 bytes; the magic always big-endian, byte_order says the
// rest) followed by PerfDataEntry records.
func parsePerfData(b []byte) (map[string]int64, error) {
	if len(b) < 32 {
		return nil, errors.New("perf data: too short")
	}
	if binary.BigEndian.Uint32(b) != perfMagic {
		return nil, fmt.Errorf("perf data: bad magic %#x", binary.BigEndian.Uint32(b))
	}
	var bo binary.ByteOrder = binary.BigEndian
	if b[4] == 1 {
		bo = binary.LittleEndian
	}
	entry := int(bo.Uint32(b[24:]))
	n := int(bo.Uint32(b[28:]))
	out := make(map[string]int64, n)
	for range n {
		if entry < 0 || entry+20 > len(b) {
			return nil, errors.New("perf data: entry out of bounds")
		}
		e := b[entry:]
		length := int(bo.Uint32(e[0:]))
		nameOff := int(bo.Uint32(e[4:]))
		vecLen := int(bo.Uint32(e[8:]))
		typ := e[12]
		dataOff := int(bo.Uint32(e[16:]))
		if length <= 0 || length > len(e) || nameOff >= length || dataOff > length {
			return nil, errors.New("perf data: corrupt entry")
		}
		name := e[nameOff:length]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if typ == 'J' && vecLen == 0 && dataOff+8 <= length {
			out[string(name)] = int64(bo.Uint64(e[dataOff:]))
		}
		entry += length
	}
	return out, nil
}
