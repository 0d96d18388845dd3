package runtime

import (
	"sync"
	"time"
)

// Operations' log lines go to the operator's log, and a guest decides how
// many it writes (up to a thousand a call). logBudget rations them per
// caller, a burst of logBurst lines and then logRate a second, so that one
// caller cannot fill the operator's disk or drown everyone else's lines.
const (
	logRate       = 100
	logBurst      = 1000
	maxLogBuckets = 10_000 // past this many callers, those whose budget has refilled are forgotten
)

type logBudget struct {
	mu      sync.Mutex
	callers map[string]*logBucket
}

// logBucket is a caller's token bucket: tokens lines may be written, as of
// at; dropped lines were dropped since the warning at warned.
type logBucket struct {
	tokens  float64
	at      time.Time
	dropped int
	warned  time.Time
}

// logWarnEvery is how often a caller's dropped lines are reported.
const logWarnEvery = time.Minute

// allow takes one line from did's budget at now, and reports whether there
// was one. A line dropped logWarnEvery or more after the last report
// returns how many were dropped since (itself included), to say so in the
// log: once a minute, not once a line.
func (b *logBudget) allow(did string, now time.Time) (ok bool, report int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.callers[did]
	if k == nil {
		if b.callers == nil {
			b.callers = map[string]*logBucket{}
		}
		if len(b.callers) >= maxLogBuckets {
			b.forgetFull(now)
		}
		k = &logBucket{tokens: logBurst, at: now}
		b.callers[did] = k
	}
	k.tokens = k.refilled(now)
	k.at = now
	if k.tokens >= 1 {
		k.tokens--
		return true, 0
	}
	k.dropped++
	if !k.warned.IsZero() && now.Sub(k.warned) < logWarnEvery {
		return false, 0
	}
	report, k.dropped, k.warned = k.dropped, 0, now
	return false, report
}

func (k *logBucket) refilled(now time.Time) float64 {
	return min(logBurst, k.tokens+max(0, now.Sub(k.at).Seconds())*logRate)
}

// forgetFull drops the buckets that have refilled and have no drops to
// report: their callers would start from a full budget anyway.
func (b *logBudget) forgetFull(now time.Time) {
	for did, k := range b.callers {
		if k.refilled(now) >= logBurst && k.dropped == 0 {
			delete(b.callers, did)
		}
	}
}
