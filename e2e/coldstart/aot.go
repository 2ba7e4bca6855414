package coldstart

import (
	"strings"
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

// AOT cache states of one restart, read from the broker JVM's -Xlog:aot output. Only a log
// that says the cache was opened, and says nothing of rejecting it, counts as used.
const (
	AOTUsed       = "used"
	AOTRejected   = "rejected"
	AOTNoEvidence = "no evidence"
)

// AOTCacheUse is what one restart's broker JVM logged about its AOT cache.
type AOTCacheUse struct {
	State    string   `json:"state"`
	Log      string   `json:"log"`
	Evidence []string `json:"evidence,omitempty"`
}

// Phrases of HotSpot's AOT/CDS logging (JDK 24–25, -Xlog:aot and -Xlog:cds), lower case. A
// rejection phrase anywhere wins over an "opened" line: the JVM can open a file and then
// refuse it (a different JDK build, classpath or GC), and goes on without it.
var (
	aotRejectedPhrases = []string{
		"unable to use aot cache",
		"unable to use shared archive",
		"unable to map shared spaces",
		"an error has occurred while processing the aot cache",
		"loading static archive failed",
		"using aot-linked classes: false",
		"aot cache disabled",
		"created by a different version or build",
		"mismatch",
	}
	aotUsedPhrases = []string{
		"opened aot cache",
		"using aot-linked classes: true",
	}
)

// maxAOTEvidence bounds the lines kept per restart.
const maxAOTEvidence = 6

// ClassifyAOTLog reads a broker JVM's AOT log: rejected when any line says so, used when a
// line says the cache was opened and none rejects it, else no evidence (a missing or empty
// log, or a JVM that never mentioned the cache, is not a used cache).
func ClassifyAOTLog(log string) AOTCacheUse {
	var used, rejected []string
	for _, line := range strings.Split(log, "\n") {
		l := strings.ToLower(line)
		switch {
		case containsAny(l, aotRejectedPhrases):
			rejected = append(rejected, strings.TrimSpace(line))
		case containsAny(l, aotUsedPhrases):
			used = append(used, strings.TrimSpace(line))
		}
	}
	switch {
	case len(rejected) > 0:
		return AOTCacheUse{State: AOTRejected, Evidence: firstN(rejected, maxAOTEvidence)}
	case len(used) > 0:
		return AOTCacheUse{State: AOTUsed, Evidence: firstN(used, maxAOTEvidence)}
	}
	return AOTCacheUse{State: AOTNoEvidence}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func firstN(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	return lines
}
