package edit

import (
	"testing"
)

const c1Flag = "-XX:TieredStopAtLevel=1"

func TestMergeJavaOpts(t *testing.T) {
	for _, tc := range []struct{ name, have, add, want string }{
		{"appended", "-Xms256M -Xmx1G", c1Flag, "-Xms256M -Xmx1G " + c1Flag},
		{"already there once: unchanged, spacing kept", "-Xmx1G  " + c1Flag + " -Dx=1", c1Flag, "-Xmx1G  " + c1Flag + " -Dx=1"},
		{"another level replaced", "-XX:TieredStopAtLevel=4 -Xmx1G", c1Flag, "-Xmx1G " + c1Flag},
		{"repeated copies folded", c1Flag + " -Xmx1G " + c1Flag, c1Flag, "-Xmx1G " + c1Flag},
		{"empty value", "", c1Flag, c1Flag},
		{"boolean flag by name", "-XX:-UseG1GC -Xmx1G", "-XX:+UseG1GC", "-Xmx1G -XX:+UseG1GC"},
		{"system property by key", "-Da=1 -Db=2", "-Da=3", "-Db=2 -Da=3"},
		{"other flags kept", "-XX:TieredStopAtLevelX=1", c1Flag, "-XX:TieredStopAtLevelX=1 " + c1Flag},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeJavaOpts(tc.have, tc.add)
			if got != tc.want {
				t.Errorf("mergeJavaOpts(%q, %q) = %q, want %q", tc.have, tc.add, got, tc.want)
			}
			if again := mergeJavaOpts(got, tc.add); again != got {
				t.Errorf("second merge changed %q to %q", got, again)
			}
		})
	}
}
