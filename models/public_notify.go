package models

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"gorm.io/gorm"
)

// What subscribers hear of is decided here, in one place: the write path reads an incident's
// public state (on the status page or not, its public entries, its postmortem published or not)
// before the first write that can change it, and again before the transaction commits, and
// queues one message per thing that became public. Every path to "public" goes through it: an
// entry added public or turned public, the whole timeline replaced (the API's PUT), an incident
// made public with entries already public, an incident created public, a postmortem published.
// Saving again what was already public sends nothing.

// publicState is what subscribers could see of an incident at one moment in a transaction.
type publicState struct {
	public    bool // on the status page (public and not deleted)
	published bool // its postmortem published
	entries   []publicEntry
}

// publicEntry is a public timeline entry, with what recognises it again after the timeline was
// replaced (the entries then come back under new ids).
type publicEntry struct {
	ID   int64
	At   time.Time
	Kind string
	Body string
}

// watchPublic reads an incident's public state before this transaction first changes it, so that
// its end can be compared with it (notifyPublicChanges). Call it before writing; later calls for
// the same incident keep the first reading.
func (s *Store) watchPublic(tx *gorm.DB, c *changes, id int64) error {
	if _, ok := c.publicBefore[id]; ok {
		return nil
	}
	st, err := readPublicState(tx, id)
	if err != nil {
		return err
	}
	c.publicBefore[id] = st
	return nil
}

// watchEntry watches an incident before a timeline entry is written to it: only a public entry
// can reach subscribers, and only while the incident is on the status page, which writing an
// entry does not change.
func (s *Store) watchEntry(tx *gorm.DB, c *changes, incidentID int64, in EventInput) error {
	if !EventPublic(in.Kind, in.Public) {
		return nil
	}
	if err := s.watchPublic(tx, c, incidentID); err != nil {
		return err
	}
	if !c.publicBefore[incidentID].public {
		c.leftOffStatusPage(incidentID)
	}
	return nil
}

// watchNew records an incident this transaction creates: nothing of it was public before.
func (c *changes) watchNew(id int64) { c.publicBefore[id] = publicState{} }

// watchLoaded is watchPublic for an incident the write has just read whole, before changing it:
// its state is taken from what was read, with no statement of its own.
func (c *changes) watchLoaded(inc *Incident) {
	if _, ok := c.publicBefore[inc.ID]; ok {
		return
	}
	st := publicState{public: inc.Public && !inc.DeletedAt.Valid, published: inc.PostmortemState == PostmortemPublished}
	for _, ev := range inc.Timeline {
		if ev.Public {
			st.entries = append(st.entries, publicEntry{ID: ev.ID, At: ev.At.UTC(), Kind: ev.Kind, Body: ev.Body})
		}
	}
	slices.SortStableFunc(st.entries, func(a, b publicEntry) int {
		if n := a.At.Compare(b.At); n != 0 {
			return n
		}
		return int(a.ID - b.ID)
	})
	c.publicBefore[inc.ID] = st
}

// leftOffStatusPage records that this write leaves a watched incident off the status page (it
// stays or becomes private): nothing of it can have become public, and its state is not read
// again.
func (c *changes) leftOffStatusPage(id int64) { c.offStatusPage[id] = true }

func readPublicState(tx *gorm.DB, id int64) (publicState, error) {
	var rows []struct {
		Public          bool
		Deleted         bool
		PostmortemState string
		EventID         *int64
		At              *time.Time
		Kind            *string
		Body            *string
	}
	err := tx.Raw(`SELECT i.public, i.deleted_at IS NOT NULL AS deleted, i.postmortem_state,
			e.id AS event_id, e.at, e.kind, e.body
		FROM incidents i LEFT JOIN timeline_events e ON e.incident_id = i.id AND e.public
		WHERE i.id = ? ORDER BY e.at, e.id`, id).Scan(&rows).Error
	if err != nil {
		return publicState{}, fmt.Errorf("read public state of incident %d: %w", id, err)
	}
	var st publicState
	for n, r := range rows {
		if n == 0 {
			st.public = r.Public && !r.Deleted
			st.published = r.PostmortemState == PostmortemPublished
		}
		if r.EventID != nil && r.At != nil && r.Kind != nil && r.Body != nil {
			st.entries = append(st.entries, publicEntry{ID: *r.EventID, At: r.At.UTC(), Kind: *r.Kind, Body: *r.Body})
		}
	}
	return st, nil
}

// newlyPublic lists the entries of after that were not public in st. An entry public before
// under the same id was; so was a new row that stands for one gone from the public timeline in
// this transaction (the timeline replaced, the entry perhaps corrected): of the same kind, at the
// same time or with the same text. Each gone entry stands for one new row at most.
func (st publicState) newlyPublic(after publicState) []int64 {
	still := map[int64]bool{}
	for _, e := range after.entries {
		still[e.ID] = true
	}
	var gone []publicEntry
	was := map[int64]bool{}
	for _, e := range st.entries {
		was[e.ID] = true
		if !still[e.ID] {
			gone = append(gone, e)
		}
	}
	var out []int64
	for _, e := range after.entries {
		if was[e.ID] {
			continue
		}
		at := slices.IndexFunc(gone, func(old publicEntry) bool {
			return old.Kind == e.Kind && (old.At.Equal(e.At) || old.Body == e.Body)
		})
		if at >= 0 {
			gone = slices.Delete(gone, at, at+1)
			continue
		}
		out = append(out, e.ID)
	}
	return out
}

// notifyPublicChanges compares each watched incident's public state now with its state before the
// transaction's writes and queues what became public: each new public entry of an incident that
// was public already; the latest public entry of one that became public (its other entries are the
// history the message links to); its postmortem when that became public.
func (s *Store) notifyPublicChanges(tx *gorm.DB, c *changes) error {
	for _, id := range slices.Sorted(maps.Keys(c.publicBefore)) {
		if c.offStatusPage[id] {
			continue
		}
		before := c.publicBefore[id]
		after, err := readPublicState(tx, id)
		if err != nil {
			return err
		}
		if !after.public {
			continue
		}
		var updates []int64
		if before.public {
			updates = before.newlyPublic(after)
		} else if len(after.entries) > 0 {
			updates = append(updates, after.entries[len(after.entries)-1].ID)
		}
		for _, eventID := range updates {
			if err := s.notifySubscribers(tx, MessageUpdate, id, &eventID); err != nil {
				return err
			}
		}
		if after.published && (!before.published || !before.public) {
			if err := s.notifySubscribers(tx, MessagePostmortem, id, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
