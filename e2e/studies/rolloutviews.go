package studies

import (
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/rollout"
)

// rolloutSection is a view of one section of the rollout report, of the call's study (only the
// arms its arms= names, for a view that takes it).
func rolloutSection(section func(*rollout.Study) string) func(*Repo, call) (string, error) {
	return func(r *Repo, c call) (string, error) {
		s, err := r.rolloutArms(c)
		if err != nil {
			return "", err
		}
		return section(s), nil
	}
}

// rolloutPictures are the arms' timelines committed beside the study's JSON; a timeline the
// study has and the repository lacks is an error.
func rolloutPictures(r *Repo, c call) (string, error) {
	s, err := r.rolloutArms(c)
	if err != nil {
		return "", err
	}
	base := strings.TrimSuffix(c.file, ".json")
	for _, arm := range rollout.TimelineArms(s) {
		png := path.Join(path.Dir(base), rollout.TimelineFile(path.Base(base), arm))
		if _, err := os.Stat(r.path(png)); err != nil {
			return "", fmt.Errorf("%s: no such file (arm %s's timeline)", png, arm)
		}
	}
	return rollout.Pictures(s, link(c.page, base)), nil
}

// rolloutArms is the call's study with only the arms its arms= names (all without it).
func (r *Repo) rolloutArms(c call) (*rollout.Study, error) {
	s, err := r.rollout(c.file)
	if err != nil || c.arms() == nil {
		return s, err
	}
	only := *s
	only.Arms = map[string]*rollout.Arm{}
	for _, arm := range c.arms() {
		a, ok := s.Arms[arm]
		if !ok {
			return nil, fmt.Errorf("arms=%s: no arm %q in %s (its arms: %s)", c.opts["arms"], arm, c.file, strings.Join(s.ArmNames(), ","))
		}
		only.Arms[arm] = a
	}
	return &only, nil
}
