package launch

import (
	"fmt"
	"slices"
	"strings"
)

// imageEntry is what a launcher knows of its image's configuration: ENTRYPOINT, CMD, and the
// names a spec may give the entrypoint's executable.
type imageEntry struct {
	entrypoint []string
	cmd        []string
	names      []string // the paths the executable answers to, e.g. "/warmup-sidecar"
}

// command resolves the container's command line as the runtime does (Kubernetes' "Define a
// command and arguments for a container"): the spec's command replaces the ENTRYPOINT and drops
// CMD; the spec's args replace CMD. It returns what follows the executable, or an error when the
// command names an executable the image's stand-in does not have.
func (e imageEntry) command(c Container) ([]string, error) {
	cmd, args := e.entrypoint, e.cmd
	if len(c.Command) > 0 {
		cmd, args = c.Command, nil
	}
	if len(c.Args) > 0 {
		args = c.Args
	}
	if !slices.Contains(e.names, cmd[0]) {
		return nil, fmt.Errorf("container %s %s: command %q: the test bed's %s runs only its entrypoint (%s)",
			c.Pod, c.Name, strings.Join(c.Command, " "), Repository(c.Image), strings.Join(e.names, ", "))
	}
	return append(slices.Clone(cmd[1:]), args...), nil
}
