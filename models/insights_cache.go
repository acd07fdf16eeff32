package models

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// StripPlotLimit is the largest group whose values the insights page draws one by one: the
// KeepValues it asks for. The cache computes at least this many, so the page, the API and
// WarmInsights share one result.
const StripPlotLimit = 150

// insightsCacheSize is how many filters' insights a store keeps; past it the least recently used
// goes.
const insightsCacheSize = 64

// insightsCache keeps computed insights in the store, each with the value of the database's
// insights change counter read before it was computed. Triggers move that counter in the same
// transaction as every write to a table the insights read, whichever process writes, so a result
// whose counter still matches is still right; reading the counter is one cheap query.
type insightsCache struct {
	mu      sync.Mutex
	entries map[insightsKey]*insightsEntry
	flights map[insightsKey]*insightsFlight // computations under way, so concurrent misses share one
	clock   uint64                          // orders uses, for eviction
}

// insightsKey is a normalised filter without its list lengths: a result computed with longer
// lists serves a request for shorter ones by trimming them.
type insightsKey struct {
	from, to                                           instantKey
	severity, service, region, detectionMethod, factor string
	interval, groupBy                                  string
	sources                                            string
	nearMisses                                         string
}

type instantKey struct {
	set  bool
	sec  int64
	nsec int
}

func instantKeyOf(t *time.Time) instantKey {
	if t == nil {
		return instantKey{}
	}
	return instantKey{true, t.Unix(), t.Nanosecond()}
}

// insightsLimits are a filter's list lengths: KeepValues, SlowestListed and InvalidListed.
type insightsLimits struct{ keep, slowest, invalid int }

func (l insightsLimits) covers(m insightsLimits) bool {
	return l.keep >= m.keep && l.slowest >= m.slowest && l.invalid >= m.invalid
}

func (l insightsLimits) atLeast(m insightsLimits) insightsLimits {
	return insightsLimits{max(l.keep, m.keep), max(l.slowest, m.slowest), max(l.invalid, m.invalid)}
}

type insightsEntry struct {
	mark   int64
	limits insightsLimits
	result *Insights
	used   uint64
}

type insightsFlight struct {
	mark   int64
	limits insightsLimits
	done   chan struct{}
	result *Insights
	err    error
	// leaderGone says the computation failed because the request running it went away.
	leaderGone bool
}

// normalized fills in a filter's defaults.
func (f InsightsFilter) normalized() InsightsFilter {
	if f.Interval == "" {
		f.Interval = "month"
	}
	if f.GroupBy == "" {
		f.GroupBy = "severity"
	}
	if f.SlowestListed <= 0 {
		f.SlowestListed = SlowestListed
	}
	if f.InvalidListed <= 0 {
		f.InvalidListed = MaxInvalidListed
	}
	f.KeepValues = max(f.KeepValues, 0)
	return f
}

func (f InsightsFilter) key() insightsKey {
	return insightsKey{
		from: instantKeyOf(f.From), to: instantKeyOf(f.To),
		severity: f.Severity, service: f.Service, region: f.Region, detectionMethod: f.DetectionMethod, factor: f.Factor,
		interval: f.Interval, groupBy: f.GroupBy, sources: f.Sources, nearMisses: f.NearMisses,
	}
}

func (f InsightsFilter) limits() insightsLimits {
	return insightsLimits{f.KeepValues, f.SlowestListed, f.InvalidListed}
}

func (f InsightsFilter) withLimits(l insightsLimits) InsightsFilter {
	f.KeepValues, f.SlowestListed, f.InvalidListed = l.keep, l.slowest, l.invalid
	return f
}

// insightsMark is the generation of the last change seen, in any process (versions.go): the
// insights show titles and follow-ups as well as figures, so any change counts.
func (s *Store) insightsMark(ctx context.Context) (int64, error) {
	g, err := s.syncVersions(ctx)
	return int64(g), err
}

// Insights aggregates the figures of the incidents a filter chooses, with the same numbers as
// ComputeInsights, from the store's cache when nothing the insights read has changed since: then
// it runs one query, the read of the change counter. Otherwise it aggregates from the store's copy
// of every incident's insight row (insightTable), after reading again the blocks of incidents
// that changed. Concurrent requests for the same filter that miss share one computation. The
// result is shared with other callers and must not be changed. A database error is returned as it
// is, never retried.
func (s *Store) Insights(ctx context.Context, f InsightsFilter) (*Insights, error) {
	f = f.normalized()
	key, want := f.key(), f.limits()
	mark, err := s.insightsMark(ctx)
	if err != nil {
		return nil, err
	}
	c := &s.insights
	c.mu.Lock()
	e := c.entries[key]
	if e != nil && e.mark == mark && e.limits.covers(want) {
		c.clock++
		e.used = c.clock
		c.mu.Unlock()
		return trimInsights(e.result, f), nil
	}
	if fl := c.flights[key]; fl != nil && fl.mark == mark && fl.limits.covers(want) {
		c.mu.Unlock()
		select {
		case <-fl.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if fl.err == nil {
			return trimInsights(fl.result, f), nil
		}
		// A failure is this request's too, unless it came only from the request that ran the
		// computation going away: then this one computes for itself, once, unshared.
		if !fl.leaderGone || ctx.Err() != nil {
			return nil, fl.err
		}
		return s.computeCached(ctx, key, f, mark, fl.limits, nil)
	}
	// Compute at least what the page asks for, and what a result at this mark already held.
	limits := want.atLeast(InsightsFilter{KeepValues: StripPlotLimit}.normalized().limits())
	if e != nil && e.mark == mark {
		limits = limits.atLeast(e.limits)
	}
	fl := &insightsFlight{mark: mark, limits: limits, done: make(chan struct{})}
	if c.flights == nil {
		c.flights = map[insightsKey]*insightsFlight{}
	}
	c.flights[key] = fl
	c.mu.Unlock()
	return s.computeCached(ctx, key, f, mark, limits, fl)
}

// computeCached computes the insights with the given list lengths and keeps them at mark; fl,
// when set, is the flight the computation answers, for the requests waiting on it.
func (s *Store) computeCached(ctx context.Context, key insightsKey, f InsightsFilter, mark int64, limits insightsLimits, fl *insightsFlight) (*Insights, error) {
	c := &s.insights
	var full *Insights
	// Should the computation panic, the requests waiting on it get this instead of nothing.
	err := errors.New("insights computation did not finish")
	defer func() {
		c.mu.Lock()
		if err == nil {
			c.put(key, &insightsEntry{mark: mark, limits: limits, result: full})
		}
		if fl != nil {
			fl.result, fl.err, fl.leaderGone = full, err, err != nil && ctx.Err() != nil
			if c.flights[key] == fl {
				delete(c.flights, key)
			}
		}
		c.mu.Unlock()
		if fl != nil {
			close(fl.done)
		}
	}()
	// The store's copy of the rows may be newer than mark: the result is then kept at its mark.
	full, mark, err = s.insightsFromTable(ctx, f.withLimits(limits), mark)
	if err != nil {
		return nil, err
	}
	return trimInsights(full, f), nil
}

// put keeps an entry, dropping those computed before a later write (no request will match them
// again) and, when full, the least recently used. It keeps an entry already there that is newer,
// or as new with lists as long.
func (c *insightsCache) put(key insightsKey, e *insightsEntry) {
	if c.entries == nil {
		c.entries = map[insightsKey]*insightsEntry{}
	}
	if old := c.entries[key]; old != nil && (old.mark > e.mark || old.mark == e.mark && old.limits.covers(e.limits)) {
		return
	}
	for k, old := range c.entries {
		if old.mark < e.mark {
			delete(c.entries, k)
		}
	}
	if _, ok := c.entries[key]; !ok && len(c.entries) >= insightsCacheSize {
		var oldest insightsKey
		first := true
		for k, old := range c.entries {
			if first || old.used < c.entries[oldest].used {
				oldest, first = k, false
			}
		}
		delete(c.entries, oldest)
	}
	c.clock++
	e.used = c.clock
	c.entries[key] = e
}

// trimInsights answers f from a result computed for the same filter with lists at least as long:
// the slowest and invalid incidents are cut to f's lengths, and a group keeps its values only
// when it has at most f.KeepValues of them, as ComputeInsights would have done. The result is
// returned as it is when nothing needs cutting.
func trimInsights(in *Insights, f InsightsFilter) *Insights {
	if in.Filter.limits() == f.limits() {
		return in
	}
	out := *in
	out.Filter = f
	if f.KeepValues < in.Filter.KeepValues {
		out.Groups, out.Detection = trimValues(in.Groups, f.KeepValues), trimValues(in.Detection, f.KeepValues)
	}
	if len(out.Slowest) > f.SlowestListed {
		out.Slowest = out.Slowest[:f.SlowestListed:f.SlowestListed]
	}
	if len(out.InvalidIncidents) > f.InvalidListed {
		out.InvalidIncidents = out.InvalidIncidents[:f.InvalidListed:f.InvalidListed]
	}
	return &out
}

func trimValues(groups []InsightGroup, keep int) []InsightGroup {
	if groups == nil {
		return nil
	}
	out := make([]InsightGroup, len(groups))
	for n, g := range groups {
		out[n] = g
		out[n].Figures = make([]Stats, len(g.Figures))
		for k, st := range g.Figures {
			if st.Values != nil && (keep == 0 || len(st.Values) > keep) {
				st.Values = nil
			}
			out[n].Figures[k] = st
		}
	}
	return out
}

// WarmInsights computes the default insights (every incident, all time) into the cache, so the
// first visit to the insights page after a start is served from it. It tries once.
func (s *Store) WarmInsights(ctx context.Context) error {
	if _, err := s.Insights(ctx, InsightsFilter{KeepValues: StripPlotLimit}); err != nil {
		return fmt.Errorf("warm insights: %w", err)
	}
	return nil
}
