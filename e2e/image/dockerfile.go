// Package image checks the container image as built (make image) and as run (make image-test):
// the Dockerfile's two targets agree, the archive holds what the chart pulls, and the image runs
// under the securityContext the chart renders.
package image

import (
	"fmt"
	"strings"
)

// Stage is one stage of a Dockerfile: FROM ... [AS name] and its instructions, continuation
// lines joined, comments left out.
type Stage struct {
	Name, From   string
	Instructions []string
}

// Args returns the arguments of each instruction of the stage with keyword (e.g. "USER").
func (s Stage) Args(keyword string) []string {
	var out []string
	for _, in := range s.Instructions {
		kw, args, _ := strings.Cut(in, " ")
		if strings.EqualFold(kw, keyword) {
			out = append(out, strings.TrimSpace(args))
		}
	}
	return out
}

// ParseStages splits a Dockerfile into its stages, in order.
func ParseStages(dockerfile string) ([]Stage, error) {
	var stages []Stage
	var cur strings.Builder
	flush := func() error {
		in := strings.Join(strings.Fields(cur.String()), " ")
		cur.Reset()
		if in == "" {
			return nil
		}
		kw, args, _ := strings.Cut(in, " ")
		if strings.EqualFold(kw, "FROM") {
			f := strings.Fields(args)
			var st Stage
			for _, w := range f {
				if !strings.HasPrefix(w, "--") {
					st.From = w
					break
				}
			}
			if n := len(f); n >= 2 && strings.EqualFold(f[n-2], "AS") {
				st.Name = f[n-1]
			}
			stages = append(stages, st)
			return nil
		}
		if len(stages) == 0 {
			if strings.EqualFold(kw, "ARG") {
				return nil // global ARGs before the first FROM
			}
			return fmt.Errorf("%s before the first FROM", kw)
		}
		stages[len(stages)-1].Instructions = append(stages[len(stages)-1].Instructions, in)
		return nil
	}
	for _, line := range strings.Split(dockerfile, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if body, ok := strings.CutSuffix(t, "\\"); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(t)
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return stages, nil
}

// StageNamed returns the stage called name.
func StageNamed(stages []Stage, name string) (Stage, bool) {
	for _, s := range stages {
		if s.Name == name {
			return s, true
		}
	}
	return Stage{}, false
}
