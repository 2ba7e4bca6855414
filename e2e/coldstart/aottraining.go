package coldstart

import (
	"regexp"
	"strconv"
	"strings"
)

// skipLine is one class the JVM left out of an AOT cache or CDS archive:
// "Skipping <class>: <reason>" or "Skipping <class> because <reason>" (HotSpot's wording).
var skipLine = regexp.MustCompile(`Skipping (\S+?)(?:: | because )(.+)$`)

// excludedType names the class in "super class X is excluded" / "interface X is excluded", so
// the reason is grouped without it.
var excludedType = regexp.MustCompile(`^(super class|interface) \S+ (is excluded)`)

// AOTSkips groups the "Skipping" lines of a training JVM's -Xlog:aot/cds output by the JVM's
// reason ("Signed JAR", "Old class has been linked", "super class is excluded"...): how many
// classes the cache leaves out, and why.
func AOTSkips(log string) map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(log, "\n") {
		m := skipLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		reason := strings.TrimSpace(m[2])
		if e := excludedType.FindStringSubmatch(reason); e != nil {
			reason = e[1] + " " + e[2]
		}
		out[reason]++
	}
	return out
}

// AOTClassCount is one row of the "Number of classes" table an assembling JVM logs (-Xlog:aot):
// the classes of a category in the cache, how many of them are AOT-linked and AOT-initialized.
type AOTClassCount struct {
	Classes, AOTLinked, Inited int
}

// censusRow: "[7.934s][info   ][aot]       unregistered     =     3, aot-linked =     0, inited =     0".
var censusRow = regexp.MustCompile(`\]\s+(\S[^=\]]*?)\s+=\s*(\d+), aot-linked =\s*(\d+), inited =\s*(\d+)\s*$`)

// AOTClassCounts reads that table: category ("instance classes", "boot", "app", "unregistered"
// — classes of user-defined class loaders —, "(hidden)"...) → counts. The last table in the log
// wins (the assembly phase logs the cache it wrote; the training phase one without links).
func AOTClassCounts(log string) map[string]AOTClassCount {
	out := map[string]AOTClassCount{}
	for _, line := range strings.Split(log, "\n") {
		m := censusRow.FindStringSubmatch(strings.TrimRight(line, " \r"))
		if m == nil {
			continue
		}
		var n [3]int
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+2]) // \d+ matched: only an overflow could fail, and would read 0
		}
		out[m[1]] = AOTClassCount{Classes: n[0], AOTLinked: n[1], Inited: n[2]}
	}
	return out
}
