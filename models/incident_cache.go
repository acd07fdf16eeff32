package models

import (
	"slices"
	"sync"
)

// childrenCacheLimit bounds how many incidents' nested records a process keeps.
const childrenCacheLimit = 1024

// keptNested is an incident's nested records and the mark they were read at.
type keptNested struct {
	at     nestedMark
	nested Incident
}

// childrenCache keeps incidents' nested records.
type childrenCache struct {
	mu sync.Mutex
	m  map[int64]*keptNested
}

// get fills inc's nested records from memory when they were read at mark at, and says
// whether it did. inc gets its own copies of the lists, so a caller changing them changes
// nothing kept.
func (c *childrenCache) get(inc *Incident, at nestedMark) bool {
	c.mu.Lock()
	kept := c.m[inc.ID]
	c.mu.Unlock()
	if kept == nil || kept.at != at {
		return false
	}
	copyNested(inc, &kept.nested)
	return true
}

// put keeps inc's nested records, read at mark at. When the cache is full an arbitrary
// entry makes room.
func (c *childrenCache) put(inc *Incident, at nestedMark) {
	kept := &keptNested{at: at}
	copyNested(&kept.nested, inc)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[int64]*keptNested{}
	}
	if _, ok := c.m[inc.ID]; !ok && len(c.m) >= childrenCacheLimit {
		for id := range c.m {
			delete(c.m, id)
			break
		}
	}
	c.m[inc.ID] = kept
}

// copyNested gives dst copies of src's nested records, down to the lists inside them.
func copyNested(dst, src *Incident) {
	dst.Services, dst.Regions, dst.Factors = slices.Clone(src.Services), slices.Clone(src.Regions), slices.Clone(src.Factors)
	dst.Timeline, dst.ImpactWindows, dst.FollowUps = slices.Clone(src.Timeline), slices.Clone(src.ImpactWindows), slices.Clone(src.FollowUps)
	dst.Sections = slices.Clone(src.Sections)
	for n := range dst.ImpactWindows {
		dst.ImpactWindows[n].Services = slices.Clone(dst.ImpactWindows[n].Services)
	}
	for n := range dst.FollowUps {
		dst.FollowUps[n].Factors = slices.Clone(dst.FollowUps[n].Factors)
	}
}
