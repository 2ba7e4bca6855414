package coldstart

import "testing"

// The training JVM's own lines (Temurin 25.0.3, the broker's -Xlog:aot), grouped by reason; the
// excluded super type is not part of the reason.
func TestAOTSkips(t *testing.T) {
	log := `[33.725s][warning][aot] Skipping jdk/internal/event/Event: JFR event class
[33.725s][warning][aot] Skipping org/joda/time/format/PeriodFormatterBuilder$Separator: Unlinked class not supported by AOTConfiguration
[33.725s][warning][aot] Skipping org/joda/time/format/PeriodPrinter: Old class has been linked
[33.725s][warning][aot] Skipping org/joda/time/format/PeriodParser: Old class has been linked
[33.725s][warning][aot] Skipping jdk/proxy2/$Proxy9: Unsupported location
[33.726s][warning][aot] Skipping org/foo/Bar: super class org/foo/Base is excluded
[33.726s][warning][aot] Skipping org/foo/Baz: interface org/foo/I is excluded
[33.726s][warning][aot] Skipping java/lang/invoke/LambdaForm$MH/0x1 because it is dynamically generated
[33.727s][info   ][aot] Dumping shared data to file
`
	want := map[string]int{
		"JFR event class": 1, "Unlinked class not supported by AOTConfiguration": 1, "Old class has been linked": 2,
		"Unsupported location": 1, "super class is excluded": 1, "interface is excluded": 1, "it is dynamically generated": 1,
	}
	got := AOTSkips(log)
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q: %d, want %d (all %v)", k, got[k], v, got)
		}
	}
	if n := len(AOTSkips("")); n != 0 {
		t.Errorf("empty log: %d reasons", n)
	}
}

// The assembling JVM's own table (Temurin 25.0.3, the broker's cache): per category, classes,
// AOT-linked and AOT-initialized; "unregistered" are the classes of user-defined loaders.
func TestAOTClassCounts(t *testing.T) {
	log := `[7.934s][info   ][aot] Number of classes 18653
[7.934s][info   ][aot]     instance classes   = 17454, aot-linked = 17451, inited =  2124
[7.934s][info   ][aot]       boot             =  4002, aot-linked =  4002, inited =   594
[7.934s][info   ][aot]       app              = 13397, aot-linked = 13397, inited =  1529
[7.934s][info   ][aot]       unregistered     =     3, aot-linked =     0, inited =     0
[7.934s][info   ][aot]       (hidden)         =  1956, aot-linked =  1956, inited =  1956
[7.934s][info   ][aot]       (unlinked)       =     3, boot = 0, plat = 0, app = 0, unreg = 3
[7.934s][info   ][aot]     obj array classes  =  1190
`
	got := AOTClassCounts(log)
	for cat, want := range map[string]AOTClassCount{
		"instance classes": {17454, 17451, 2124}, "boot": {4002, 4002, 594}, "app": {13397, 13397, 1529},
		"unregistered": {3, 0, 0}, "(hidden)": {1956, 1956, 1956},
	} {
		if got[cat] != want {
			t.Errorf("%s: %+v, want %+v", cat, got[cat], want)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d categories, want 5 (the unlinked and array rows have another shape): %v", len(got), got)
	}
}
