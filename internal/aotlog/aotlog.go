// Package aotlog reads what a JDK 25+ JVM logged about its AOT cache (JEP 483/514/515) through
// -Xlog:aot=info,cds=info:file=<path>, and says whether the cache was used. HotSpot rotates the
// -Xlog file at JVM start, so the file holds the current JVM's lines only.
package aotlog

import (
	"strings"
)

// States of a JVM's AOT cache, read from its log. Only a log that says the cache was opened, and
// says nothing of refusing it, counts as used.
const (
	// Used: the cache was opened and its classes linked.
	Used = "used"
	// Rejected: the JVM found the cache and refused it (another JDK build, classpath or GC) and
	// runs on without it.
	Rejected = "rejected"
	// Absent: the JVM was told of a cache file that does not exist (not trained yet, or a new
	// image whose key has no cache).
	Absent = "absent"
	// Training: the JVM was started to write a cache (-XX:AOTCacheOutput), not to read one.
	Training = "training"
	// NoEvidence: the log says nothing of a cache (an empty or silent log is not a used cache).
	NoEvidence = "no_evidence"
)

// States lists every state Classify returns, in a fixed order (metrics export one series each).
var States = []string{Used, Rejected, Absent, Training, NoEvidence}

// Use is what one JVM logged about its AOT cache.
type Use struct {
	State string
	// Evidence is up to MaxEvidence of the log's lines behind the state.
	Evidence []string
}

// MaxEvidence bounds the lines kept.
const MaxEvidence = 6

// Phrases of HotSpot's AOT/CDS logging (JDK 24–25, -Xlog:aot and -Xlog:cds), lower case.
var (
	// A training JVM says so first ("Selected AOTMode=record because AOTCacheOutput is
	// specified"); its later warnings about classes it skips are not about reading a cache.
	trainingPhrases = []string{
		"aotmode=record",
		"aotcacheoutput is specified",
		"aotconfiguration recorded",
	}
	// A missing file also logs the generic error lines below: this phrase wins over them.
	absentPhrases = []string{
		"specified aot cache not found",
	}
	// A rejection phrase anywhere wins over an "opened" line: the JVM can open a file and then
	// refuse it, and goes on without it. The first ones are the JVM's reasons (a cache cut short,
	// not a cache file at all, another JDK's format), logged as warnings before the generic errors.
	rejectedPhrases = []string{
		"has been truncated",
		"bad magic number",
		"unable to read the file header",
		"has the wrong version",
		"checksum verification failed",
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
	usedPhrases = []string{
		"opened aot cache",
		"using aot-linked classes: true",
	}
)

// Classify reads a JVM's AOT log: training when the JVM was started to write a cache, absent
// when the named cache does not exist, rejected when any line refuses it, used when a line says
// it was opened and none refuses it, else no evidence.
func Classify(log string) Use {
	found := map[string][]string{}
	for _, line := range strings.Split(log, "\n") {
		l := strings.ToLower(line)
		for _, c := range []struct {
			state   string
			phrases []string
		}{{Training, trainingPhrases}, {Absent, absentPhrases}, {Rejected, rejectedPhrases}, {Used, usedPhrases}} {
			if containsAny(l, c.phrases) {
				found[c.state] = append(found[c.state], strings.TrimSpace(line))
				break
			}
		}
	}
	for _, state := range []string{Training, Absent, Rejected, Used} {
		if lines := found[state]; len(lines) > 0 {
			return Use{State: state, Evidence: lines[:min(len(lines), MaxEvidence)]}
		}
	}
	return Use{State: NoEvidence}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
