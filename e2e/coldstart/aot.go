package coldstart

import (
	"regexp"

	"github.com/warmup-sidecar/warmup-sidecar/internal/aotlog"
)

// JDK is a java executable and what it says of itself (the first line of `java -version`).
type JDK struct {
	Java    string `json:"java"`
	Version string `json:"version"`
}

// AOTTraining is how an AOT arm's cache was made: one broker started with
// -XX:AOTCacheOutput, the workload, then a clean shutdown (the JVM writes the cache at exit).
type AOTTraining struct {
	JDK      JDK    `json:"jdk"`
	Workload string `json:"workload"`
	Cache    string `json:"cache"`
	// CacheBytes is the file's size once the training JVM exited.
	CacheBytes int64 `json:"cache_bytes"`
	// Seconds from the training broker's start to its exit (the cache written).
	Seconds float64 `json:"seconds"`
	// ExitSeconds from the SIGTERM to the JVM's exit: the broker's shutdown delay plus the dump.
	ExitSeconds float64 `json:"exit_seconds"`
	// Evidence: the training JVM's own log lines about the cache it wrote.
	Evidence []string `json:"evidence,omitempty"`
}

// AOT cache states of one restart, read from the broker JVM's -Xlog:aot output by the product's
// own reader (internal/aotlog, what the sidecar reports in /status).
const (
	AOTUsed       = aotlog.Used
	AOTRejected   = aotlog.Rejected
	AOTAbsent     = aotlog.Absent
	AOTNoEvidence = aotlog.NoEvidence
)

// AOTCacheUse is what one restart's broker JVM logged about its AOT cache.
type AOTCacheUse struct {
	State    string   `json:"state"`
	Log      string   `json:"log"`
	Evidence []string `json:"evidence,omitempty"`
}

// ClassifyAOTLog reads a broker JVM's AOT log with aotlog.Classify.
func ClassifyAOTLog(log string) AOTCacheUse {
	u := aotlog.Classify(log)
	return AOTCacheUse{State: u.State, Evidence: u.Evidence}
}

// javaVersion is the quoted version of `java -version`'s first line: openjdk version "25.0.3" 2026-04-21 LTS.
var javaVersion = regexp.MustCompile(`version "([^"]+)"`)

// JavaVersion is the version `java -version` printed ("25.0.3", "17.0.15"), empty if none.
func JavaVersion(versionOutput string) string {
	if m := javaVersion.FindStringSubmatch(versionOutput); m != nil {
		return m[1]
	}
	return ""
}
