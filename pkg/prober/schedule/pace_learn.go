package schedule

import (
	"time"

	"golang.org/x/time/rate"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Brokers before Pinot 1.3 have no /debug/tables/queryQuota, so a table's quota
// is learned from the broker's own refusals. Pinot's limiter (Guava's smooth
// RateLimiter) starts a freshly restarted broker with no stored permits, so it
// admits probes at the quota's rate: the first 429 of a table sets its pace to
// QuotaShare of the success rate seen so far; a later 429 under that pace cuts
// it by a fifth, and every clean raiseEvery raises it by a tenth, so a low first
// estimate recovers. On a real 0.11 broker at 20 qps without this: 1378 refusals
// for 150 successes.

const (
	// learnWindow: successes this far back count toward the admitted rate.
	learnWindow = time.Second
	// minSpan keeps one early success from reading as an enormous rate.
	minSpan = 100 * time.Millisecond
	// raiseEvery: a learned pace with no refusal for this long speeds up.
	raiseEvery = 250 * time.Millisecond
	// minLearnedRate keeps a learned pace from stopping a table altogether.
	minLearnedRate = 1.0
	// maxLearnedRate caps the raises: a pace raised clean after clean must still
	// be a pace, one a later refusal can cut, not "no limit at all".
	maxLearnedRate = 10_000.0
)

// observe feeds one probe answer to the pacer. changed reports a table whose
// pace was just learned, with the admitted rate it came from and the rate used.
func (p *pacer) observe(sql string, res pinot.Result) (table string, quota, pace float64, changed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for _, t := range p.tables[sql] {
		lim := p.limits[t]
		at, learned := p.learned[t]
		switch {
		case res.Class == pinot.Success:
			c := p.ok[t]
			if c == nil {
				c = &okCounter{}
				p.ok[t] = c
			}
			c.add(now)
			if learned && now.Sub(at) >= raiseEvery {
				lim.SetLimitAt(now, min(lim.Limit()*1.1, maxLearnedRate))
				p.learned[t] = now
			}
		case !pinot.QuotaRefused(res):
		case lim == nil:
			admitted := p.admittedRate(t, now)
			if admitted == 0 {
				// A refusal before any success (answers of a first burst can come
				// back in any order) says nothing about the rate: wait for one.
				continue
			}
			pace = min(max(admitted*QuotaShare, minLearnedRate), maxLearnedRate)
			p.limits[t], p.learned[t] = rate.NewLimiter(rate.Limit(pace), 1), now
			return t, admitted, pace, true
		case learned && now.Sub(at) >= raiseEvery:
			// Refused on pace (not a straggler sent before the last change): slow down.
			lim.SetLimitAt(now, max(lim.Limit()/1.25, minLearnedRate))
			p.learned[t] = now
		}
	}
	return "", 0, 0, false
}

// admittedRate is the table's successes per second over the time observed.
func (p *pacer) admittedRate(t string, now time.Time) float64 {
	n := 0
	if c := p.ok[t]; c != nil {
		n = c.count(now)
	}
	span := min(max(now.Sub(p.start), minSpan), learnWindow)
	return float64(n) / span.Seconds()
}

// okCounter counts successes over the last learnWindow in okSlots slots of
// learnWindow/okSlots each: constant memory at any probe rate (a list of
// timestamps held ~50,000 entries at in-process speeds).
type okCounter struct {
	slot [okSlots]int
	at   [okSlots]int64 // the slot's index in time (unix nanos / slot width)
}

const okSlots = 10

func slotOf(now time.Time) int64 { return now.UnixNano() / int64(learnWindow/okSlots) }

func (c *okCounter) add(now time.Time) {
	k := slotOf(now)
	i := int(k % okSlots)
	if c.at[i] != k {
		c.at[i], c.slot[i] = k, 0
	}
	c.slot[i]++
}

// count is the successes in the slots of the last learnWindow, now's included.
func (c *okCounter) count(now time.Time) int {
	k := slotOf(now)
	n := 0
	for i := range okSlots {
		if k-c.at[i] < okSlots {
			n += c.slot[i]
		}
	}
	return n
}
