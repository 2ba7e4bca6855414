package launch

import (
	"slices"
	"strings"
	"testing"
)

// Command and args as the runtime combines them with the image's ENTRYPOINT and CMD.
func TestEntrypointCommand(t *testing.T) {
	e := imageEntry{entrypoint: []string{"/bin/app", "-v"}, cmd: []string{"serve"}, names: []string{"/bin/app"}}
	for _, tc := range []struct {
		name          string
		command, args []string
		want          []string
	}{
		{"image's", nil, nil, []string{"-v", "serve"}},
		{"args replace CMD", nil, []string{"once"}, []string{"-v", "once"}},
		{"command drops CMD", []string{"/bin/app"}, nil, []string{}},
		{"command and args", []string{"/bin/app", "-q"}, []string{"plan"}, []string{"-q", "plan"}},
	} {
		got, err := e.command(Container{Command: tc.command, Args: tc.args})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
	_, err := e.command(Container{Pod: "ns/p", Name: "c", Image: "r/app:1", Command: []string{"/bin/sh"}})
	if err == nil || !strings.Contains(err.Error(), `container ns/p c: command "/bin/sh": the test bed's r/app runs only its entrypoint (/bin/app)`) {
		t.Errorf("another executable: %v", err)
	}
}
