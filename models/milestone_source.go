package models

import (
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Where a milestone's time came from.
const (
	SourceTyped    = "typed"    // a person typed it on a form or sent it through the API
	SourceImported = "imported" // an importer read it from a file or a status page
	SourceAlert    = "alert"    // an alerting integration suggested it
	SourcePasted   = "pasted"   // read from text pasted into the new-incident form
)

// MilestoneSourceKinds are the source kinds, in the order filters offer them.
var MilestoneSourceKinds = []string{SourceTyped, SourceImported, SourceAlert, SourcePasted}

// MilestoneSource records where one milestone of an incident came from.
type MilestoneSource struct {
	IncidentID int64     `json:"-"`
	Milestone  string    `json:"-"`
	Kind       string    `json:"kind"`
	Detail     string    `json:"detail"` // the person, the file or status page, the integration and alert, "pasted"
	UserID     *int64    `json:"user_id,omitempty"`
	RecordedAt time.Time `json:"recorded_at"`
}

// FromMachine tells whether no person typed the time: it came from an import or an alert.
func (m MilestoneSource) FromMachine() bool { return m.Kind == SourceImported || m.Kind == SourceAlert }

// Label is the source as one short phrase: "typed by Ann", "set by alert am-prod".
func (m MilestoneSource) Label() string {
	switch m.Kind {
	case SourceTyped:
		return "typed by " + m.Detail
	case SourceImported:
		return "imported from " + m.Detail
	case SourceAlert:
		return "set by alert " + m.Detail
	case SourcePasted:
		return "read from pasted text"
	}
	return m.Kind
}

// MilestoneOrigin says where the milestones of an input came from. The zero value means the
// context's actor typed them.
type MilestoneOrigin struct {
	// Kind and Detail, when Kind is set, apply to every milestone the write sets or changes.
	Kind   string
	Detail string
	// Details, by milestone, overrides Detail: each milestone an alert set names its own alert.
	Details map[string]string
	// Pasted names the milestones read from pasted text; the others were typed.
	Pasted map[string]bool
}

func (o MilestoneOrigin) sourceFor(milestone string, actor Actor, now time.Time) MilestoneSource {
	src := MilestoneSource{Milestone: milestone, Kind: SourceTyped, Detail: actor.Label, RecordedAt: now}
	switch {
	case o.Kind != "":
		src.Kind, src.Detail = o.Kind, o.Detail
		if d, ok := o.Details[milestone]; ok {
			src.Detail = d
		}
	case o.Pasted[milestone]:
		src.Kind, src.Detail = SourcePasted, "pasted"
	}
	if src.Kind == SourceTyped && actor.UserID != 0 {
		id := actor.UserID
		src.UserID = &id
	}
	return src
}

func milestoneValues(inc *Incident) map[string]*time.Time {
	if inc == nil {
		return map[string]*time.Time{}
	}
	list := inc.Milestones().List()
	out := make(map[string]*time.Time, len(list))
	for n, name := range MilestoneNames {
		out[name] = list[n]
	}
	return out
}

// writeMilestoneSources records the source of every milestone the write set or changed and drops
// the source of every milestone it cleared, in the write's transaction. It returns, for the
// history, the sources that changed kind (an alert's time typed over): the earlier value stays in
// the same history entry as the earlier time. The write's sources, the ones it did not touch
// included, are set on after (only when the write changed a milestone: after's are otherwise
// left as they were).
func writeMilestoneSources(tx *gorm.DB, incidentID int64, before, after *Incident, origin MilestoneOrigin) (fields, fields, error) {
	was, now := milestoneValues(before), milestoneValues(after)
	var changed, cleared []string
	for _, name := range MilestoneNames {
		switch {
		case now[name] == nil && was[name] != nil:
			cleared = append(cleared, name)
		case now[name] != nil && (was[name] == nil || !was[name].Equal(*now[name])):
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 && len(cleared) == 0 {
		return nil, nil, nil
	}
	old := map[string]MilestoneSource{}
	if before != nil {
		var rows []MilestoneSource
		if err := tx.Where("incident_id = ?", incidentID).Find(&rows).Error; err != nil {
			return nil, nil, fmt.Errorf("read milestone sources: %w", err)
		}
		for _, r := range rows {
			old[r.Milestone] = r
		}
	}
	if len(cleared) > 0 {
		if err := tx.Where("incident_id = ? AND milestone IN ?", incidentID, cleared).Delete(&MilestoneSource{}).Error; err != nil {
			return nil, nil, fmt.Errorf("clear milestone sources: %w", err)
		}
	}
	actor := actorFrom(tx.Statement.Context)
	stamp := time.Now().UTC().Truncate(time.Second)
	beforeFields, afterFields := fields{}, fields{}
	var rows []MilestoneSource
	for _, name := range changed {
		src := origin.sourceFor(name, actor, stamp)
		src.IncidentID = incidentID
		rows = append(rows, src)
		if prev, ok := old[name]; ok && prev.Kind != src.Kind {
			beforeFields[name+"_source"] = prev.Label()
			afterFields[name+"_source"] = src.Label()
		}
	}
	kept := map[string]MilestoneSource{}
	for name, src := range old {
		kept[name] = src
	}
	for _, name := range cleared {
		delete(kept, name)
	}
	for _, r := range rows {
		kept[r.Milestone] = r
	}
	after.MilestoneSources = nil
	if len(kept) > 0 {
		after.MilestoneSources = kept
	}
	if len(rows) > 0 {
		err := tx.Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "incident_id"}, {Name: "milestone"}},
			DoUpdates: clause.AssignmentColumns([]string{"kind", "detail", "user_id", "recorded_at"}),
		}).Create(&rows).Error
		if err != nil {
			return nil, nil, fmt.Errorf("record milestone sources: %w", err)
		}
	}
	return beforeFields, afterFields, nil
}

// mergeFields adds extra's entries to base, making base when it is nil and extra is not empty.
func mergeFields(base, extra fields) fields {
	if len(extra) == 0 {
		return base
	}
	if base == nil {
		base = fields{}
	}
	for k, v := range extra {
		base[k] = v
	}
	return base
}

func sourceMap(rows []MilestoneSource) map[string]MilestoneSource {
	if len(rows) == 0 {
		return nil
	}
	out := make(map[string]MilestoneSource, len(rows))
	for _, r := range rows {
		out[r.Milestone] = r
	}
	return out
}

// milestoneSourcesJSON is the column GetIncident reads the sources through, one JSON array built
// by the database, so an incident page stays one statement.
func (s *Store) milestoneSourcesJSON() string {
	if s.dialect == "postgres" {
		return `(SELECT COALESCE(json_agg(json_build_object('milestone', ms.milestone, 'kind', ms.kind, 'detail', ms.detail,
			'user_id', ms.user_id, 'recorded_at', to_char(ms.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')))::text, '')
			FROM milestone_sources ms WHERE ms.incident_id = incidents.id)`
	}
	return `(SELECT COALESCE(json_group_array(json_object('milestone', ms.milestone, 'kind', ms.kind, 'detail', ms.detail,
		'user_id', ms.user_id, 'recorded_at', strftime('%Y-%m-%dT%H:%M:%SZ', ms.recorded_at))), '')
		FROM milestone_sources ms WHERE ms.incident_id = incidents.id)`
}

type sourceJSON struct {
	Milestone  string    `json:"milestone"`
	Kind       string    `json:"kind"`
	Detail     string    `json:"detail"`
	UserID     *int64    `json:"user_id"`
	RecordedAt time.Time `json:"recorded_at"`
}

func parseSourcesJSON(incidentID int64, raw string) (map[string]MilestoneSource, error) {
	if raw == "" || raw == "[]" {
		return nil, nil
	}
	var list []sourceJSON
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return nil, fmt.Errorf("read milestone sources of incident %d: %w", incidentID, err)
	}
	rows := make([]MilestoneSource, len(list))
	for n, r := range list {
		rows[n] = MilestoneSource{IncidentID: incidentID, Milestone: r.Milestone, Kind: r.Kind, Detail: r.Detail, UserID: r.UserID, RecordedAt: r.RecordedAt}
	}
	return sourceMap(rows), nil
}
