package models

import (
	"context"
	"sync"
	"time"
)

// SimilarCache remembers each incident's similar incidents for a short while. Ranking them reads
// up to a thousand incidents sharing a word, still most of an incident page's time; suggestions
// a minute old are as useful as fresh ones. An edit of the incident itself (its updated_at
// moves) or its expiry makes the entry stale. Safe for concurrent use.
type SimilarCache struct {
	ttl     time.Duration
	limit   int
	mu      sync.Mutex
	entries map[int64]similarEntry
}

type similarEntry struct {
	updatedAt time.Time
	at        time.Time
	similar   []Similar
}

// NewSimilarCache returns a cache keeping up to limit incidents' suggestions for ttl.
func NewSimilarCache(ttl time.Duration, limit int) *SimilarCache {
	return &SimilarCache{ttl: ttl, limit: limit, entries: map[int64]similarEntry{}}
}

// For returns up to five earlier incidents like inc, from the cache when fresh.
func (c *SimilarCache) For(ctx context.Context, s *Store, inc *Incident) ([]Similar, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[inc.ID]
	c.mu.Unlock()
	if ok && e.updatedAt.Equal(inc.UpdatedAt) && now.Sub(e.at) < c.ttl {
		return e.similar, nil
	}
	similar, err := s.SimilarIncidents(ctx, SimilarQuery{
		ExcludeID: inc.ID, Before: inc.StartedAt, Text: inc.Title + " " + inc.Summary,
		Services: inc.ServiceNames(), Factors: inc.FactorSlugs(),
	}, 5)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.limit {
		// Drop the expired first; if all are fresh, start over rather than track an LRU.
		for id, old := range c.entries {
			if now.Sub(old.at) >= c.ttl {
				delete(c.entries, id)
			}
		}
		if len(c.entries) >= c.limit {
			clear(c.entries)
		}
	}
	c.entries[inc.ID] = similarEntry{updatedAt: inc.UpdatedAt, at: now, similar: similar}
	return similar, nil
}
