package models

import (
	"fmt"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// childWriter is the one writer of incidents' nested records: timeline entries (with what a
// Statuspage update said beyond them), impact windows (with their services) and follow-ups (with
// their factors). Imports, the restore, the API's and the forms' replace and the incident page's
// paste all write through it. It gathers the records of any number of incidents and writes each
// kind in batches; a kind being replaced first loses what the incident held of it.
type childWriter struct {
	// history, when not nil, records every removed and every added record, as single writes
	// record them. A restore has none: the snapshot's own history is the record.
	history *history
	// resolveOwners makes each follow-up's owner the account it names (resolveOwner), as the
	// forms and the API do; imports and the restore keep the owner as written.
	resolveOwners bool

	clearEvents, clearWindows, clearFollowUps []int64
	events                                    []TimelineEvent
	eventDetails                              []*StatuspageUpdate
	windows                                   []ImpactWindow
	windowServices                            [][]string
	followUps                                 []FollowUp
	followUpFactors                           [][]string
}

// add takes the lists c carries for an incident: each that is not nil replaces what the incident
// holds of its kind when replace is true, and is added to it otherwise (a new incident, a paste).
func (w *childWriter) add(incidentID int64, c Children, replace bool) error {
	if err := checkTimelineSize(c); err != nil {
		return err
	}
	if c.Timeline != nil {
		if replace {
			w.clearEvents = append(w.clearEvents, incidentID)
		}
		for _, in := range *c.Timeline {
			ev := eventRow(incidentID, in)
			if in.CreatedAt != nil {
				ev.CreatedAt = in.CreatedAt.UTC()
			}
			if in.UpdatedAt != nil {
				ev.UpdatedAt = in.UpdatedAt.UTC()
			}
			w.events = append(w.events, ev)
			w.eventDetails = append(w.eventDetails, in.Statuspage)
		}
	}
	if c.ImpactWindows != nil {
		if replace {
			w.clearWindows = append(w.clearWindows, incidentID)
		}
		for _, in := range *c.ImpactWindows {
			w.windows = append(w.windows, windowRow(incidentID, in))
			w.windowServices = append(w.windowServices, uniqueNames(in.Services))
		}
	}
	if c.FollowUps != nil {
		if replace {
			w.clearFollowUps = append(w.clearFollowUps, incidentID)
		}
		for _, in := range *c.FollowUps {
			w.followUps = append(w.followUps, followUpRow(incidentID, in, nil))
			w.followUpFactors = append(w.followUpFactors, uniqueNames(in.Factors))
		}
	}
	return nil
}

// addStored takes an incident's nested records as they were stored, ids and times included (a
// restore into an empty database). Services and factors are named by the rows they carry.
func (w *childWriter) addStored(inc *Incident) {
	for _, ev := range inc.Timeline {
		ev.IncidentID = inc.ID
		w.events = append(w.events, ev)
		w.eventDetails = append(w.eventDetails, nil)
	}
	for _, win := range inc.ImpactWindows {
		w.windowServices = append(w.windowServices, win.ServiceNames())
		win.IncidentID, win.Services = inc.ID, nil
		w.windows = append(w.windows, win)
	}
	for _, f := range inc.FollowUps {
		w.followUpFactors = append(w.followUpFactors, f.FactorSlugs())
		f.IncidentID, f.Factors, f.Incident = inc.ID, nil, nil
		w.followUps = append(w.followUps, f)
	}
}

// write removes the records being replaced and inserts the gathered ones, recording in ch which
// incidents changed: entries and windows are read by the insights, follow-ups are not.
func (w *childWriter) write(tx *gorm.DB, ch *changes) error {
	w.recordChanges(ch)
	if err := w.clear(tx); err != nil {
		return err
	}
	if err := w.writeEvents(tx); err != nil {
		return err
	}
	if err := w.writeFollowUps(tx); err != nil {
		return err
	}
	return w.writeWindows(tx)
}

func (w *childWriter) recordChanges(ch *changes) {
	ch.insights(nonZero(w.clearEvents)...)
	ch.insights(nonZero(w.clearWindows)...)
	ch.recurrence(nonZero(w.clearFollowUps)...)
	for n := range w.events {
		ch.insights(w.events[n].IncidentID)
	}
	for n := range w.windows {
		ch.insights(w.windows[n].IncidentID)
	}
	for n := range w.followUps {
		ch.recurrence(w.followUps[n].IncidentID)
	}
}

// clear removes the kinds being replaced, recording each removed record in the history.
func (w *childWriter) clear(tx *gorm.DB) error {
	if w.history != nil {
		if err := w.recordRemoved(tx); err != nil {
			return err
		}
	}
	if err := clearRows(tx, nonZero(w.clearEvents), "timeline_events"); err != nil {
		return err
	}
	if err := clearRows(tx, nonZero(w.clearWindows), "impact_windows"); err != nil {
		return err
	}
	return clearRows(tx, nonZero(w.clearFollowUps), "follow_ups")
}

func (w *childWriter) recordRemoved(tx *gorm.DB) error {
	h := w.history
	// New incidents have nothing to clear; their zero ids match no row.
	oldEvents, err := loadChildren[TimelineEvent](tx, nonZero(w.clearEvents), "")
	if err != nil {
		return err
	}
	for n := range oldEvents {
		if err := h.add(ActionDelete, EntityEvent, oldEvents[n].ID, oldEvents[n].IncidentID, eventFields(&oldEvents[n]), nil); err != nil {
			return err
		}
	}
	oldWindows, err := loadChildren[ImpactWindow](tx, nonZero(w.clearWindows), "Services")
	if err != nil {
		return err
	}
	for n := range oldWindows {
		old := &oldWindows[n]
		if err := h.add(ActionDelete, EntityWindow, old.ID, old.IncidentID, windowFields(old, old.ServiceNames()), nil); err != nil {
			return err
		}
	}
	oldFollowUps, err := loadChildren[FollowUp](tx, nonZero(w.clearFollowUps), "Factors")
	if err != nil {
		return err
	}
	for n := range oldFollowUps {
		old := &oldFollowUps[n]
		if err := h.add(ActionDelete, EntityFollowUp, old.ID, old.IncidentID, followUpFields(old, old.FactorSlugs()), nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *childWriter) writeEvents(tx *gorm.DB) error {
	if len(w.events) == 0 {
		return nil
	}
	if err := tx.CreateInBatches(&w.events, importRowBatch).Error; err != nil {
		return fmt.Errorf("insert timeline events: %w", err)
	}
	var details []StatuspageUpdate
	for n := range w.events {
		if w.history != nil {
			if err := w.history.add(ActionCreate, EntityEvent, w.events[n].ID, w.events[n].IncidentID, nil, eventFields(&w.events[n])); err != nil {
				return err
			}
		}
		if d := w.eventDetails[n]; d != nil {
			row := *d
			row.EventID = w.events[n].ID
			details = append(details, row)
		}
	}
	if len(details) > 0 {
		if err := tx.CreateInBatches(&details, importRowBatch).Error; err != nil {
			return fmt.Errorf("insert statuspage update details: %w", err)
		}
	}
	return nil
}

func (w *childWriter) writeFollowUps(tx *gorm.DB) error {
	if len(w.followUps) == 0 {
		return nil
	}
	if w.resolveOwners {
		if err := resolveOwners(tx, w.followUps); err != nil {
			return err
		}
	}
	if err := tx.Omit(clause.Associations).CreateInBatches(&w.followUps, importRowBatch).Error; err != nil {
		return fmt.Errorf("insert follow-ups: %w", err)
	}
	var slugs []string
	for _, list := range w.followUpFactors {
		slugs = append(slugs, list...)
	}
	factorIDs, err := factorIDMap(tx, slugs)
	if err != nil {
		return err
	}
	var links []map[string]any
	for n := range w.followUps {
		for _, slug := range w.followUpFactors[n] {
			links = append(links, map[string]any{"follow_up_id": w.followUps[n].ID, "factor_id": factorIDs[slug]})
		}
		if w.history != nil {
			if err := w.history.add(ActionCreate, EntityFollowUp, w.followUps[n].ID, w.followUps[n].IncidentID, nil, followUpFields(&w.followUps[n], w.followUpFactors[n])); err != nil {
				return err
			}
		}
	}
	return insertMaps(tx, "follow_up_factors", links)
}

func (w *childWriter) writeWindows(tx *gorm.DB) error {
	if len(w.windows) == 0 {
		return nil
	}
	if err := tx.Omit(clause.Associations).CreateInBatches(&w.windows, importRowBatch).Error; err != nil {
		return fmt.Errorf("insert impact windows: %w", err)
	}
	var names []string
	for n, list := range w.windowServices {
		names = append(names, list...)
		if w.history != nil {
			if err := w.history.add(ActionCreate, EntityWindow, w.windows[n].ID, w.windows[n].IncidentID, nil, windowFields(&w.windows[n], list)); err != nil {
				return err
			}
		}
	}
	serviceIDs, err := nameIDMap(tx, "services", names)
	if err != nil {
		return err
	}
	var links []map[string]any
	for n, list := range w.windowServices {
		for _, name := range list {
			links = append(links, map[string]any{"impact_window_id": w.windows[n].ID, "service_id": serviceIDs[strings.TrimSpace(name)]})
		}
	}
	return insertMaps(tx, "impact_window_services", links)
}

// resolveOwners does for many follow-ups what resolveOwner does for one, in one query per batch
// of distinct owners: an owner naming exactly one enabled account, by email or by name (ignoring
// case as the database's LOWER does), becomes that account.
func resolveOwners(tx *gorm.DB, followUps []FollowUp) error {
	var owners []string
	seen := map[string]bool{}
	for n := range followUps {
		followUps[n].OwnerID = nil
		owner := strings.TrimSpace(followUps[n].Owner)
		if owner != "" && !seen[owner] {
			seen[owner] = true
			owners = append(owners, owner)
		}
	}
	type match struct {
		Owner string
		ID    int64
		Email string
	}
	matches := map[string][]match{}
	for chunk := range chunks(owners, changesBatch) {
		values := strings.TrimSuffix(strings.Repeat("(CAST(? AS TEXT)), ", len(chunk)), ", ")
		args := make([]any, len(chunk))
		for n, owner := range chunk {
			args[n] = owner
		}
		var found []match
		err := tx.Raw(`WITH o (owner) AS (VALUES `+values+`)
			SELECT o.owner, u.id, u.email FROM o JOIN users u ON u.disabled_at IS NULL
				AND (LOWER(u.email) = LOWER(o.owner) OR LOWER(u.name) = LOWER(o.owner))`, args...).Scan(&found).Error
		if err != nil {
			return fmt.Errorf("match follow-up owners: %w", err)
		}
		for _, m := range found {
			matches[m.Owner] = append(matches[m.Owner], m)
		}
	}
	for n := range followUps {
		if found := matches[strings.TrimSpace(followUps[n].Owner)]; len(found) == 1 {
			followUps[n].OwnerID, followUps[n].Owner = &found[0].ID, found[0].Email
		}
	}
	return nil
}
