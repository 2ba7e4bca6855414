package coldstart

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// template is one shape of a named mix: sql renders it with one draw's parameters.
type template struct {
	name   string
	weight int // arrivals per round of the mix
	sql    func(p *params) string
}

// mixRounds is how many rounds a named mix holds: each template appears weight × mixRounds
// times, each with its own parameters, before the load cycles back to the start.
const mixRounds = 16

// buildMix renders rounds of templates. A round has each template weight times in a row, so
// the weights hold over any stretch of the load; draw i of a template is a pure function of
// (mix, template, i), so a mix is the same queries on every machine and in every run.
func buildMix(mix string, rounds int, ts []template) Mix {
	var m Mix
	for r := range rounds {
		for _, t := range ts {
			for k := range t.weight {
				i := r*t.weight + k
				m = append(m, Query{Name: t.name, SQL: t.sql(newParams(mix, t.name, i)), Draw: i})
			}
		}
	}
	return m
}

// params hands out one rendering's parameters from a splitmix64 stream: unlike math/rand its
// sequence can never change under us.
type params struct{ state uint64 }

func newParams(mix, tmpl string, i int) *params {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", mix, tmpl, i)
	return &params{state: h.Sum64()}
}

func (p *params) next() uint64 {
	p.state += 0x9e3779b97f4a7c15
	z := p.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn is in [0, n).
func (p *params) intn(n int) int { return int(p.next() % uint64(n)) }

// pick is one of vals.
func (p *params) pick(vals []string) string { return vals[p.intn(len(vals))] }

// distinct is k different values of [0, n), in draw order (k ≤ n).
func (p *params) distinct(k, n int) []int {
	seen := map[int]bool{}
	out := make([]int, 0, k)
	for len(out) < k {
		if v := p.intn(n); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// recent is a [from, to) range in epoch ms that ends on a whole hour at most 5 hours before
// BenchData.NowMs and spans span: a dashboard's "last N hours", refreshed at another hour.
func (p *params) recent(span time.Duration) (from, to int64) {
	to = BenchData.NowMs - int64(p.intn(6))*time.Hour.Milliseconds()
	return to - span.Milliseconds(), to
}

// quoted is 'v' for each value, comma-separated (values hold no quote).
func quoted(vals ...string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, ", ")
}

// ints is the values comma-separated.
func ints(vals []int) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// multiStage prefixes sql with the SET statement that runs it on the multi-stage engine.
func multiStage(sql string) string { return "SET useMultistageEngine=true; " + sql }
