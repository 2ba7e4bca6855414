package selector

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// Coverage is the result of choosing tables to probe.
type Coverage struct {
	// Chosen are the tables to probe, in the order the cover picked them.
	Chosen []Table `json:"chosen"`
	// Universe is every server of every routable table, sorted: the servers this
	// broker can scatter to (tenant-scoped, not the cluster's server list).
	Universe []string `json:"universe"`
	// Uncovered are the servers of Universe that no chosen table reaches, sorted.
	Uncovered []string `json:"uncovered"`
}

// Cover picks at most maxTables tables by deterministic greedy set cover: candidates
// in name order, each round taking the table that covers the most still-uncovered
// servers (the first in name order on a tie), stopping when every server is covered,
// when no table adds a server, or at maxTables. Tables without servers are skipped.
func Cover(tables []Table, maxTables int) Coverage {
	cands := make([]Table, 0, len(tables))
	for _, t := range tables {
		if len(t.Servers) > 0 && len(t.Legs) > 0 {
			cands = append(cands, t)
		}
	}
	// Name order; the legs and servers only break ties between entries sharing a
	// name, so the result never depends on input order.
	slices.SortFunc(cands, func(a, b Table) int {
		return cmp.Or(
			strings.Compare(a.Name, b.Name),
			slices.Compare(a.Legs, b.Legs),
			slices.Compare(a.Servers, b.Servers),
		)
	})

	universe := unionServers(cands)
	covered := make(map[string]bool, len(universe))
	var chosen []Table
	taken := make([]bool, len(cands))
	for len(chosen) < maxTables && len(covered) < len(universe) {
		best, bestGain := -1, 0
		for i, t := range cands {
			if taken[i] {
				continue
			}
			if g := gain(t, covered); g > bestGain {
				best, bestGain = i, g
			}
		}
		if best < 0 {
			break
		}
		taken[best] = true
		chosen = append(chosen, cands[best])
		for _, s := range cands[best].Servers {
			covered[s] = true
		}
	}
	return Coverage{Chosen: chosen, Universe: universe, Uncovered: Uncovered(universe, chosen)}
}

// Uncovered lists the servers of universe that none of chosen reaches, sorted.
func Uncovered(universe []string, chosen []Table) []string {
	hit := map[string]bool{}
	for _, t := range chosen {
		for _, s := range t.Servers {
			hit[s] = true
		}
	}
	out := []string{}
	for _, s := range universe {
		if !hit[s] {
			out = append(out, s)
		}
	}
	return out
}

// gain counts the distinct servers of t not yet covered. Servers is sorted and
// unique when it comes from TableFromRouting, but a caller-built Table may repeat
// a server, which must not inflate its gain.
func gain(t Table, covered map[string]bool) int {
	n := 0
	var seen map[string]bool
	for _, s := range t.Servers {
		if covered[s] || seen[s] {
			continue
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[s] = true
		n++
	}
	return n
}

func unionServers(tables []Table) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, t := range tables {
		for _, s := range t.Servers {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}
