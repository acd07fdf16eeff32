package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// IncidentFilter narrows the incident list. Empty fields do not filter.
type IncidentFilter struct {
	Status          string
	Severity        string
	Service         string
	Region          string
	PostmortemState string
	Text            string // the words /search finds (textFilter)
	Limit           int
	Offset          int
}

// ListIncidents returns one page of incidents, newest start first, each with its nested
// records and links as GetIncident reads them, and the total number that match the filter. The
// page's rows come with their nestedMarks in one statement; the nested records of incidents that
// have not changed since they were last read come from memory, and the others are read in one
// batch of five statements whatever their number.
func (s *Store) ListIncidents(ctx context.Context, f IncidentFilter) ([]Incident, int64, error) {
	db := s.read.WithContext(ctx)
	total, err := s.countIncidents(ctx, db, f)
	if err != nil {
		return nil, 0, err
	}
	var rows []incidentRowScan
	if err := s.pageIncidents(s.filterIncidents(db, f), f).Select(s.incidentRowColumns()).Scan(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("list incidents: %w", err)
	}
	incidents := make([]Incident, len(rows))
	var missing []*Incident
	var missingMarks []nestedMark
	for n := range rows {
		mark, err := rows[n].decode(&incidents[n])
		if err != nil {
			return nil, 0, err
		}
		if !s.children.get(&incidents[n], mark) {
			missing, missingMarks = append(missing, &incidents[n]), append(missingMarks, mark)
		}
	}
	if err := loadNested(db, missing...); err != nil {
		return nil, 0, err
	}
	for n, inc := range missing {
		s.children.put(inc, missingMarks[n])
	}
	return incidents, total, nil
}

func (s *Store) filterIncidents(db *gorm.DB, f IncidentFilter) *gorm.DB {
	q := db.Model(&Incident{})
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Severity != "" {
		q = q.Where("severity = ?", f.Severity)
	}
	if f.PostmortemState != "" {
		q = q.Where("postmortem_state = ?", f.PostmortemState)
	}
	if f.Service != "" {
		q = q.Where("id IN (SELECT incident_id FROM incident_services JOIN services ON services.id = incident_services.service_id WHERE services.name = ?)", f.Service)
	}
	if f.Region != "" {
		q = q.Where("id IN (SELECT incident_id FROM incident_regions JOIN regions ON regions.id = incident_regions.region_id WHERE regions.name = ?)", f.Region)
	}
	if text := strings.TrimSpace(f.Text); text != "" {
		q = s.textFilter(q, text)
	}
	return q
}

func (s *Store) pageIncidents(q *gorm.DB, f IncidentFilter) *gorm.DB {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	return q.Order(s.startedDesc()).Order("id DESC").Limit(f.Limit).Offset(f.Offset)
}

// ExplainListIncidents returns the database's plan for one page of the incident list, so tests
// can prove the hot query is served by an index.
func (s *Store) ExplainListIncidents(ctx context.Context, f IncidentFilter) (string, error) {
	query := s.read.ToSQL(func(tx *gorm.DB) *gorm.DB {
		var incidents []Incident
		return s.pageIncidents(s.filterIncidents(tx, f), f).Find(&incidents)
	})
	prefix := "EXPLAIN QUERY PLAN "
	if s.dialect == "postgres" {
		prefix = "EXPLAIN "
	}
	rows, err := s.read.WithContext(ctx).Raw(prefix + query).Rows()
	if err != nil {
		return "", fmt.Errorf("explain incident list: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var plan strings.Builder
	for rows.Next() {
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		fmt.Fprintln(&plan, values[len(values)-1])
	}
	return plan.String(), rows.Err()
}

func orderByName(db *gorm.DB) *gorm.DB { return db.Order("name") }

// startedDesc orders by start, newest first, unknown starts last, in the form the index serves.
func (s *Store) startedDesc() string {
	if s.dialect == "postgres" {
		return "started_at DESC NULLS LAST"
	}
	return "started_at DESC"
}

// GetIncident loads one incident with its services, regions, timeline, impact windows and
// follow-ups. The row is read every time, with its incident's version and the shared versions in
// the same statement; the nested records come from memory while those versions say they have not
// changed, so a page view of an unchanged incident is one statement instead of five. The
// versions come from the row's own snapshot, never from an earlier look at what changed: a row
// read just after a write committed is never paired with the nested records from before it.
func (s *Store) GetIncident(ctx context.Context, id int64) (*Incident, error) {
	db := s.read.WithContext(ctx)
	inc, at, err := s.incidentRow(db, id)
	if err != nil {
		return nil, err
	}
	if s.children.get(inc, at) {
		return inc, nil
	}
	if err := loadNested(db, inc); err != nil {
		return nil, err
	}
	s.children.put(inc, at)
	return inc, nil
}

// nestedMark is what an incident's nested records were read at: the versions of its own row of
// incident_versions and of the shared and everything rows (names, settings, a restore), as the
// statement that read the incident's row saw them. The nested records are read after the row,
// so those kept under a mark are never older than it.
type nestedMark struct{ incident, shared, everything int64 }

// incidentRowScan is an incident's row as incidentRowColumns read it.
type incidentRowScan struct {
	Incident       `gorm:"embedded"`
	Sources        string
	Links          string
	MarkIncident   int64
	MarkShared     int64
	MarkEverything int64
}

// incidentRowColumns are an incident's columns with its milestone sources, its links and its
// nestedMark, read in the row's own statement.
func (s *Store) incidentRowColumns() string {
	version := func(of string) string {
		return `COALESCE((SELECT version FROM incident_versions WHERE incident_id = ` + of + `), 0)`
	}
	return `incidents.*, ` + s.milestoneSourcesJSON() + ` AS sources, ` + s.linksJSON() + ` AS links, ` +
		version("incidents.id") + ` AS mark_incident, ` + version(strconv.FormatInt(sharedRow, 10)) + ` AS mark_shared, ` +
		version(strconv.FormatInt(everythingRow, 10)) + ` AS mark_everything`
}

// decode fills inc from the row and returns the mark its nested records are kept under.
func (r *incidentRowScan) decode(inc *Incident) (nestedMark, error) {
	*inc = r.Incident
	var err error
	if inc.MilestoneSources, err = parseSourcesJSON(inc.ID, r.Sources); err != nil {
		return nestedMark{}, err
	}
	if inc.Links, err = parseLinksJSON(inc.ID, r.Links); err != nil {
		return nestedMark{}, err
	}
	return nestedMark{r.MarkIncident, r.MarkShared, r.MarkEverything}, nil
}

// incidentRow reads a live incident's row with its milestone sources, its links and its
// nestedMark, in one statement.
func (s *Store) incidentRow(db *gorm.DB, id int64) (*Incident, nestedMark, error) {
	var row incidentRowScan
	err := db.Raw(`SELECT `+s.incidentRowColumns()+` FROM incidents WHERE id = ? AND deleted_at IS NULL`, id).Scan(&row).Error
	if err == nil && row.ID == 0 {
		err = gorm.ErrRecordNotFound
	}
	if err != nil {
		return nil, nestedMark{}, notFound(err, fmt.Sprintf("incident %d", id))
	}
	var inc Incident
	at, err := row.decode(&inc)
	if err != nil {
		return nil, nestedMark{}, err
	}
	return &inc, at, nil
}

// getIncident loads an incident in six statements: the row with its milestone sources, its
// timeline, windows, follow-ups and sections, and every name they are tagged with in one query
// (gorm's many-to-many preloads would take two statements per association, eleven in all).
func (s *Store) getIncident(db *gorm.DB, id int64) (*Incident, error) {
	inc, _, err := s.incidentRow(db, id)
	if err != nil {
		return nil, err
	}
	if err := loadNested(db, inc); err != nil {
		return nil, err
	}
	return inc, nil
}

// loadNested reads the nested records of the given incidents in five statements, whatever their
// number (none for none): timelines, windows, follow-ups and sections, and every name they are
// tagged with in one query (gorm's many-to-many preloads would take two statements per
// association).
func loadNested(db *gorm.DB, incidents ...*Incident) error {
	if len(incidents) == 0 {
		return nil
	}
	byID := make(map[int64]*Incident, len(incidents))
	ids := make([]int64, len(incidents))
	for n, inc := range incidents {
		byID[inc.ID], ids[n] = inc, inc.ID
		inc.Timeline, inc.ImpactWindows, inc.FollowUps, inc.Sections = nil, nil, nil, nil
		inc.Services, inc.Regions, inc.Factors = nil, nil, nil
	}
	var timeline []TimelineEvent
	if err := db.Where("incident_id IN ?", ids).Order("incident_id, at, id").Find(&timeline).Error; err != nil {
		return fmt.Errorf("load timelines of incidents %v: %w", ids, err)
	}
	for _, e := range timeline {
		byID[e.IncidentID].Timeline = append(byID[e.IncidentID].Timeline, e)
	}
	var windows []ImpactWindow
	if err := db.Omit(clause.Associations).Where("incident_id IN ?", ids).Order("incident_id, started_at, id").Find(&windows).Error; err != nil {
		return fmt.Errorf("load impact windows of incidents %v: %w", ids, err)
	}
	for _, w := range windows {
		byID[w.IncidentID].ImpactWindows = append(byID[w.IncidentID].ImpactWindows, w)
	}
	var followUps []FollowUp
	if err := db.Omit(clause.Associations).Where("incident_id IN ?", ids).Order("incident_id, id").Find(&followUps).Error; err != nil {
		return fmt.Errorf("load follow-ups of incidents %v: %w", ids, err)
	}
	for _, f := range followUps {
		byID[f.IncidentID].FollowUps = append(byID[f.IncidentID].FollowUps, f)
	}
	if err := loadTags(db, byID, ids); err != nil {
		return fmt.Errorf("load tags of incidents %v: %w", ids, err)
	}
	var sections []IncidentSection
	if err := db.Where("incident_id IN ?", ids).Order("incident_id, position, id").Find(&sections).Error; err != nil {
		return fmt.Errorf("load sections of incidents %v: %w", ids, err)
	}
	for _, sec := range sections {
		byID[sec.IncidentID].Sections = append(byID[sec.IncidentID].Sections, sec)
	}
	return nil
}

// loadTags fills the incidents' services, regions and factors, their windows' services and
// their follow-ups' factors from one UNION query, each list sorted by name.
func loadTags(db *gorm.DB, byID map[int64]*Incident, ids []int64) error {
	windowIDs, followUpIDs := []int64{0}, []int64{0}
	windows := map[int64]*ImpactWindow{}
	followUps := map[int64]*FollowUp{}
	for _, inc := range byID {
		for n := range inc.ImpactWindows {
			windowIDs = append(windowIDs, inc.ImpactWindows[n].ID)
			windows[inc.ImpactWindows[n].ID] = &inc.ImpactWindows[n]
		}
		for n := range inc.FollowUps {
			followUpIDs = append(followUpIDs, inc.FollowUps[n].ID)
			followUps[inc.FollowUps[n].ID] = &inc.FollowUps[n]
		}
	}
	var rows []struct {
		Kind        string
		Owner       int64
		ID          int64
		Name        string
		Slug        string
		Description string
	}
	err := db.Raw(`
		SELECT 's' AS kind, j.incident_id AS owner, t.id, t.name, '' AS slug, '' AS description
			FROM incident_services j JOIN services t ON t.id = j.service_id WHERE j.incident_id IN ?
		UNION ALL SELECT 'r', j.incident_id, t.id, t.name, '', '' FROM incident_regions j JOIN regions t ON t.id = j.region_id WHERE j.incident_id IN ?
		UNION ALL SELECT 'f', j.incident_id, t.id, t.name, t.slug, t.description FROM incident_factors j JOIN factors t ON t.id = j.factor_id WHERE j.incident_id IN ?
		UNION ALL SELECT 'w', j.impact_window_id, t.id, t.name, '', '' FROM impact_window_services j JOIN services t ON t.id = j.service_id WHERE j.impact_window_id IN ?
		UNION ALL SELECT 'u', j.follow_up_id, t.id, t.name, t.slug, t.description FROM follow_up_factors j JOIN factors t ON t.id = j.factor_id WHERE j.follow_up_id IN ?
		ORDER BY 4, 3`, ids, ids, ids, windowIDs, followUpIDs).Scan(&rows).Error
	if err != nil {
		return err
	}
	for _, r := range rows {
		switch r.Kind {
		case "s":
			if inc := byID[r.Owner]; inc != nil {
				inc.Services = append(inc.Services, Service{ID: r.ID, Name: r.Name})
			}
		case "r":
			if inc := byID[r.Owner]; inc != nil {
				inc.Regions = append(inc.Regions, Region{ID: r.ID, Name: r.Name})
			}
		case "f":
			if inc := byID[r.Owner]; inc != nil {
				inc.Factors = append(inc.Factors, Factor{ID: r.ID, Slug: r.Slug, Name: r.Name, Description: r.Description})
			}
		case "w":
			if w := windows[r.Owner]; w != nil {
				w.Services = append(w.Services, Service{ID: r.ID, Name: r.Name})
			}
		case "u":
			if f := followUps[r.Owner]; f != nil {
				f.Factors = append(f.Factors, Factor{ID: r.ID, Slug: r.Slug, Name: r.Name, Description: r.Description})
			}
		}
	}
	return nil
}

// Children are the nested records a create or full replace may carry. A nil slice leaves the
// incident's existing records alone on update.
type Children struct {
	Timeline      *[]EventInput
	ImpactWindows *[]WindowInput
	FollowUps     *[]FollowUpInput
	// Links replaces the incident's outgoing links.
	Links *[]LinkInput
}

// nested tells whether a write is given nested records to write: it then reads the incident
// back for its answer, as the child writer stored them, instead of answering what it was given.
func (c Children) nested() bool {
	return c.Timeline != nil || c.ImpactWindows != nil || c.FollowUps != nil || c.Links != nil
}

// CreateIncident stores a new incident and its nested records in one transaction.
func (s *Store) CreateIncident(ctx context.Context, in IncidentInput, children Children) (*Incident, error) {
	var created *Incident
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) (err error) {
		created, err = s.createIncident(tx, c, in, children)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create incident: %w", err)
	}
	return created, nil
}

// createIncident is CreateIncident inside the caller's transaction, recording what it writes in c.
func (s *Store) createIncident(tx *gorm.DB, c *changes, in IncidentInput, children Children) (*Incident, error) {
	inc := Incident{Version: 1, Source: in.Source, ExternalID: in.ExternalID}
	applyIncidentInput(&inc, in)
	if err := tx.Omit(clause.Associations).Create(&inc).Error; err != nil {
		return nil, fmt.Errorf("insert incident: %w", err)
	}
	c.row(inc.ID, true)
	if len(in.Factors) > 0 || children.FollowUps != nil {
		c.recurrence(inc.ID)
	}
	c.watchNew(inc.ID)
	if !inc.Public {
		c.leftOffStatusPage(inc.ID)
	}
	if _, err := s.changeTags(tx, &Incident{ID: inc.ID}, in, &inc); err != nil {
		return nil, err
	}
	if _, _, err := writeMilestoneSources(tx, inc.ID, nil, &inc, in.Origin); err != nil {
		return nil, err
	}
	if err := audit(tx, ActionCreate, EntityIncident, inc.ID, inc.ID, nil, incidentFields(&inc, uniqueNames(in.Services), uniqueNames(in.Regions), uniqueNames(in.Factors))); err != nil {
		return nil, err
	}
	if err := s.replaceChildren(tx, c, inc.ID, children); err != nil {
		return nil, err
	}
	if err := writeSections(tx, c, inc.ID, in); err != nil {
		return nil, err
	}
	if inc.PostmortemState == PostmortemPublished {
		if err := s.publishedOnWrite(tx, inc.ID, ""); err != nil {
			return nil, err
		}
	}
	created := &inc
	if children.nested() || in.Sections != nil || inc.PostmortemState == PostmortemPublished {
		// Nested records were written (the child writer resolves owners and the sections are
		// laid out under their template), or publishing stamped the row: read them as stored.
		var err error
		if created, err = s.getIncident(tx, inc.ID); err != nil {
			return nil, err
		}
	}
	return created, s.incidentWritten(tx, nil, created) // webhook events: outbox.go
}

// UpdateIncident replaces an incident's fields. When version is non-zero it must match the stored
// version, else ErrConflict: nobody's edit is overwritten silently.
func (s *Store) UpdateIncident(ctx context.Context, id int64, version int, in IncidentInput, children Children) (*Incident, error) {
	var updated *Incident
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) (err error) {
		updated, err = s.updateIncident(tx, c, id, version, in, children)
		return err
	})
	if err != nil {
		return nil, err
	}
	return updated, nil
}

// updateIncident is UpdateIncident inside the caller's transaction, recording what it writes in c.
func (s *Store) updateIncident(tx *gorm.DB, c *changes, id int64, version int, in IncidentInput, children Children) (*Incident, error) {
	loaded, err := s.getIncident(tx, id)
	if err != nil {
		return nil, err
	}
	c.watchLoaded(loaded)
	current := *loaded
	if version != 0 && version != current.Version {
		return nil, fmt.Errorf("incident %d is at version %d, not %d: %w", id, current.Version, version, ErrConflict)
	}
	next := current
	applyIncidentInput(&next, in)
	next.Version = current.Version + 1
	if !next.Public {
		c.leftOffStatusPage(id)
	}
	columns := changedIncidentColumns(&current, &next)
	// The model is next, so the stamp gorm writes (updated_at) is set on what the edit answers.
	res := tx.Model(&next).Where("id = ? AND version = ?", id, current.Version).
		Select(columns).Updates(&next)
	if res.Error != nil {
		return nil, fmt.Errorf("update incident %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("incident %d changed during the update: %w", id, ErrConflict)
	}
	retagged, err := s.changeTags(tx, &current, in, &next)
	if err != nil {
		return nil, err
	}
	c.row(id, readsInsights(columns) || retagged)
	if slices.Contains(columns, "started_at") || !sameNames(current.FactorSlugs(), in.Factors) {
		c.recurrence(id)
	}
	sourcesBefore, sourcesAfter, err := writeMilestoneSources(tx, id, &current, &next, in.Origin)
	if err != nil {
		return nil, err
	}
	before := mergeFields(incidentFields(&current, current.ServiceNames(), current.RegionNames(), current.FactorSlugs()), sourcesBefore)
	after := mergeFields(incidentFields(&next, uniqueNames(in.Services), uniqueNames(in.Regions), uniqueNames(in.Factors)), sourcesAfter)
	if err := audit(tx, ActionUpdate, EntityIncident, id, id, before, after); err != nil {
		return nil, err
	}
	if err := s.replaceChildren(tx, c, id, children); err != nil {
		return nil, err
	}
	sectionsChanged, err := writeSectionsChanged(tx, c, id, in)
	if err != nil {
		return nil, err
	}
	if next.PostmortemState == PostmortemPublished {
		if err := s.publishedOnWrite(tx, id, current.PostmortemState); err != nil {
			return nil, err
		}
	}
	if children.nested() || sectionsChanged {
		updated, err := s.getIncident(tx, id)
		if err != nil {
			return nil, err
		}
		return updated, s.incidentWritten(tx, &current, updated) // webhook events: outbox.go
	}
	// Nothing nested changed: the edit is what was read, with its new row and the tags it wrote.
	return &next, s.incidentWritten(tx, &current, &next) // webhook events: outbox.go
}

// DeleteIncident soft-deletes an incident; it disappears from lists and pages, and its history
// stays.
func (s *Store) DeleteIncident(ctx context.Context, id int64) error {
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		var current Incident
		if err := tx.Preload("Services").Preload("Regions").Preload("Factors").First(&current, id).Error; err != nil {
			return notFound(err, fmt.Sprintf("incident %d", id))
		}
		if err := tx.Delete(&Incident{}, id).Error; err != nil {
			return fmt.Errorf("delete incident %d: %w", id, err)
		}
		c.row(id, true)
		c.recurrence(id)
		return audit(tx, ActionDelete, EntityIncident, id, id, incidentFields(&current, current.ServiceNames(), current.RegionNames(), current.FactorSlugs()), nil)
	})
}

// IncidentExists tells whether a live incident has this id.
func (s *Store) IncidentExists(ctx context.Context, id int64) (bool, error) {
	var n int64
	if err := s.read.WithContext(ctx).Model(&Incident{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return false, fmt.Errorf("find incident %d: %w", id, err)
	}
	return n > 0, nil
}

// FindBySource returns the id of the incident imported from source with this external id, or 0.
// Deleted incidents count: what someone deleted on purpose is not brought back by a re-import.
func (s *Store) FindBySource(ctx context.Context, source, externalID string) (int64, error) {
	var ids []int64
	err := s.read.WithContext(ctx).Unscoped().Model(&Incident{}).Where("source = ? AND external_id = ?", source, externalID).Limit(1).Pluck("id", &ids).Error
	if err != nil {
		return 0, fmt.Errorf("find %s incident %s: %w", source, externalID, err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return ids[0], nil
}

// incidentColumns are the columns an edit may change, with the field that holds each; version
// and updated_at move with every edit, and the rest (id, created_at, deleted_at, source,
// external_id) never change by one.
var incidentColumns = []struct {
	name  string
	value func(*Incident) any
}{
	{"title", func(i *Incident) any { return i.Title }},
	{"summary", func(i *Incident) any { return i.Summary }},
	{"severity", func(i *Incident) any { return i.Severity }},
	{"status", func(i *Incident) any { return i.Status }},
	{"detection_method", func(i *Incident) any { return i.DetectionMethod }},
	{"customer_impact", func(i *Incident) any { return i.CustomerImpact }},
	{"root_cause", func(i *Incident) any { return i.RootCause }},
	{"trigger", func(i *Incident) any { return i.Trigger }},
	{"detection", func(i *Incident) any { return i.Detection }},
	{"response", func(i *Incident) any { return i.Response }},
	{"lessons", func(i *Incident) any { return i.Lessons }},
	{"time_zone", func(i *Incident) any { return i.TimeZone }},
	{"triggered_at", func(i *Incident) any { return instantValue(i.TriggeredAt) }},
	{"started_at", func(i *Incident) any { return instantValue(i.StartedAt) }},
	{"detected_at", func(i *Incident) any { return instantValue(i.DetectedAt) }},
	{"acknowledged_at", func(i *Incident) any { return instantValue(i.AcknowledgedAt) }},
	{"mitigated_at", func(i *Incident) any { return instantValue(i.MitigatedAt) }},
	{"resolved_at", func(i *Incident) any { return instantValue(i.ResolvedAt) }},
	{"milestone_days", func(i *Incident) any { return i.MilestoneDays }},
	{"postmortem_state", func(i *Incident) any { return i.PostmortemState }},
	{"published_at", func(i *Incident) any { return instantValue(i.PublishedAt) }},
	{"public", func(i *Incident) any { return i.Public }},
	{"near_miss", func(i *Incident) any { return i.NearMiss }},
	{"template_slug", func(i *Incident) any { return i.TemplateSlug }},
}

// instantValue makes a nullable instant comparable with ==: Unix nanoseconds, or nil.
func instantValue(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixNano()
}

// changedIncidentColumns names the columns an edit writes: those whose value changed, with
// version and updated_at. Writing every column made a title-only edit look, to the triggers that
// keep derived state, like a change of every milestone.
func changedIncidentColumns(current, next *Incident) []string {
	columns := []string{"version", "updated_at"}
	for _, c := range incidentColumns {
		if c.value(current) != c.value(next) {
			columns = append(columns, c.name)
		}
	}
	return columns
}

// insightColumns are the columns of incidents the insight rows read (insightRow): an edit that
// writes none of them, nor the incident's tags, timeline or windows, leaves its row as it was.
var insightColumns = map[string]bool{
	"near_miss": true, "severity": true, "detection_method": true, "started_at": true, "detected_at": true,
	"acknowledged_at": true, "mitigated_at": true, "resolved_at": true, "deleted_at": true,
	"milestone_days": true,
}

// readsInsights says whether an edit writing these columns changes the incident's insight row.
func readsInsights(columns []string) bool {
	for _, c := range columns {
		if insightColumns[c] {
			return true
		}
	}
	return false
}

// sameNames says whether want names the same set as have, ignoring case, repeats and blanks.
func sameNames(have, want []string) bool {
	want = uniqueNames(want)
	if len(have) != len(want) {
		return false
	}
	set := map[string]bool{}
	for _, h := range have {
		set[strings.ToLower(h)] = true
	}
	for _, w := range want {
		if !set[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

func applyIncidentInput(inc *Incident, in IncidentInput) {
	inc.Title = strings.TrimSpace(in.Title)
	inc.Summary = in.Summary
	inc.Severity = in.Severity
	inc.Status = in.Status
	inc.DetectionMethod = in.DetectionMethod
	inc.CustomerImpact = in.CustomerImpact
	inc.RootCause = in.RootCause
	inc.Trigger = in.Trigger
	inc.Detection = in.Detection
	inc.Response = in.Response
	inc.Lessons = in.Lessons
	inc.TimeZone = in.TimeZone
	inc.PostmortemState = in.PostmortemState
	if in.PostmortemState == "published" && inc.PublishedAt == nil {
		now := time.Now().UTC().Truncate(time.Second)
		inc.PublishedAt = &now
	}
	inc.Public = in.Public
	inc.NearMiss = in.NearMiss
	inc.TemplateSlug = in.Template
	inc.SetMilestones(in.Milestones.Map(utc))
	inc.MilestoneDays = milestoneDays(inc, in.MilestoneDays)
}

// milestoneDays keeps, in the milestones' order, the named ones the incident has.
func milestoneDays(inc *Incident, names []string) string {
	var kept []string
	for n, t := range inc.Milestones().List() {
		if t != nil && slices.Contains(names, MilestoneNames[n]) {
			kept = append(kept, MilestoneNames[n])
		}
	}
	return strings.Join(kept, ",")
}

// DayMilestones names the milestones known only to the day, in the milestones' order.
func (i *Incident) DayMilestones() []string {
	if i.MilestoneDays == "" {
		return nil
	}
	return strings.Split(i.MilestoneDays, ",")
}

// DayOnly tells whether the named milestone is known only to the day.
func (i *Incident) DayOnly(name string) bool {
	return i.MilestoneDays != "" && slices.Contains(strings.Split(i.MilestoneDays, ","), name)
}

// utc normalises an instant for storage: UTC, whole seconds.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

// changeTags writes the tags of in that differ from inc's, kind by kind, and says whether any did.
func (s *Store) changeTags(tx *gorm.DB, inc *Incident, in IncidentInput, next *Incident) (bool, error) {
	changed := false
	if !sameNames(inc.ServiceNames(), in.Services) {
		rows, err := namedRows(tx, "services", in.Services)
		if err != nil {
			return false, err
		}
		if err := replaceLinks(tx, "incident_services", "incident_id", "service_id", inc.ID, rowIDs(rows)); err != nil {
			return false, err
		}
		next.Services = make([]Service, len(rows))
		for n, r := range rows {
			next.Services[n] = Service{ID: r.ID, Name: r.Name}
		}
		changed = true
	}
	if !sameNames(inc.RegionNames(), in.Regions) {
		rows, err := namedRows(tx, "regions", in.Regions)
		if err != nil {
			return false, err
		}
		if err := replaceLinks(tx, "incident_regions", "incident_id", "region_id", inc.ID, rowIDs(rows)); err != nil {
			return false, err
		}
		next.Regions = make([]Region, len(rows))
		for n, r := range rows {
			next.Regions[n] = Region{ID: r.ID, Name: r.Name}
		}
		changed = true
	}
	if !sameNames(inc.FactorSlugs(), in.Factors) {
		factors, err := factorRows(tx, in.Factors, "factors")
		if err != nil {
			return false, err
		}
		ids := make([]int64, len(factors))
		for n, f := range factors {
			ids[n] = f.ID
		}
		if err := replaceLinks(tx, "incident_factors", "incident_id", "factor_id", inc.ID, ids); err != nil {
			return false, err
		}
		next.Factors = factors
		changed = true
	}
	return changed, nil
}

// idName is a row of a name table.
type idName struct {
	ID   int64
	Name string
}

func rowIDs(rows []idName) []int64 {
	ids := make([]int64, len(rows))
	for n, r := range rows {
		ids[n] = r.ID
	}
	return ids
}

// namedIDs finds the ids of the rows of a name table (services, regions), creating names not
// seen before.
func namedIDs(tx *gorm.DB, table string, names []string) ([]int64, error) {
	rows, err := namedRows(tx, table, names)
	return rowIDs(rows), err
}

// namedRows finds the rows of a name table (services, regions), in name order, creating the names
// not seen before, in one statement: on SQLite an upsert whose update leaves the row as it is
// returns the known rows with the new ones; on PostgreSQL the new rows come from the insert and
// the known ones from the same statement's snapshot, so no known name's row is locked (writers
// tagging one service do not wait for each other). A name another writer adds meanwhile is
// missing from a PostgreSQL answer; only then are the names read again.
func namedRows(tx *gorm.DB, table string, names []string) ([]idName, error) {
	clean := uniqueNames(names)
	if len(clean) == 0 {
		return nil, nil
	}
	now := time.Now().UTC().Truncate(time.Second)
	values, args := make([]string, len(clean)), make([]any, 0, 2*len(clean)+1)
	for n, name := range clean {
		values[n] = "(?, ?)"
		args = append(args, name, now)
	}
	insert := "INSERT INTO " + table + " (name, created_at) VALUES " + strings.Join(values, ", ")
	query := insert + " ON CONFLICT (name) DO UPDATE SET name = " + table + ".name RETURNING id, name"
	if tx.Dialector.Name() == "postgres" {
		query = "WITH added AS (" + insert + " ON CONFLICT (name) DO NOTHING RETURNING id, name) " +
			"SELECT id, name FROM added UNION ALL SELECT id, name FROM " + table + " WHERE name IN ?"
		args = append(args, clean)
	}
	var found []idName
	if err := tx.Raw(query, args...).Scan(&found).Error; err != nil {
		return nil, fmt.Errorf("find or add %s: %w", table, err)
	}
	if len(found) < len(clean) {
		found = found[:0]
		if err := tx.Table(table).Select("id", "name").Where("name IN ?", clean).Scan(&found).Error; err != nil {
			return nil, fmt.Errorf("find %s: %w", table, err)
		}
	}
	slices.SortFunc(found, func(a, b idName) int { return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	return found, nil
}

// UniqueNames trims names and drops empty ones and case-insensitive repeats, keeping the first
// spelling: how the store keeps lists of services, regions and factors.
func UniqueNames(names []string) []string { return uniqueNames(names) }

func uniqueNames(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" || seen[strings.ToLower(name)] {
			continue
		}
		seen[strings.ToLower(name)] = true
		out = append(out, name)
	}
	return out
}

// replaceLinks makes ownerID's links in table exactly otherIDs, deleting and inserting only the
// links that differ: an unchanged list writes no row, so no trigger moves a count, a revision or
// an insights block for it.
func replaceLinks(tx *gorm.DB, table, ownerColumn, otherColumn string, ownerID int64, otherIDs []int64) error {
	stale := tx.Table(table).Where(ownerColumn+" = ?", ownerID)
	if len(otherIDs) > 0 {
		stale = stale.Where(otherColumn+" NOT IN ?", otherIDs)
	}
	if err := stale.Delete(nil).Error; err != nil {
		return fmt.Errorf("clear %s: %w", table, err)
	}
	if len(otherIDs) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(otherIDs))
	for n, id := range otherIDs {
		rows[n] = map[string]any{ownerColumn: ownerID, otherColumn: id}
	}
	if err := tx.Table(table).Clauses(clause.OnConflict{DoNothing: true}).Create(rows).Error; err != nil {
		return fmt.Errorf("fill %s: %w", table, err)
	}
	return nil
}

// ServiceNames lists every known service, for filters and suggestions.
func (s *Store) ServiceNames(ctx context.Context) ([]string, error) {
	var names []string
	err := s.read.WithContext(ctx).Model(&Service{}).Order("name").Pluck("name", &names).Error
	if err != nil {
		return nil, fmt.Errorf("list services: %w", err)
	}
	return names, nil
}

// RegionNames lists every known region.
func (s *Store) RegionNames(ctx context.Context) ([]string, error) {
	var names []string
	err := s.read.WithContext(ctx).Model(&Region{}).Order("name").Pluck("name", &names).Error
	if err != nil {
		return nil, fmt.Errorf("list regions: %w", err)
	}
	return names, nil
}
